package io.shardscan.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.ScanTasks;
import io.shardscan.core.StaticShardCoordinator;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.ChaosTests;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.RedisConnections;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.WakeNodeMain;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * Wake-ups of shards another node holds are batched before they are published: a burst of 10 000
 * for two shards this node does not hold sends a handful of messages on the task's channel, each
 * naming the shards queued meanwhile, not 10 000.
 */
@ChaosTests
class WakePublishCoalescingTests {

    static final int SHARDS = 8;
    static final int BURST = 10_000;

    final DataSource dataSource = TestServers.postgresDatabase("wake_publish");
    LettuceConnectionFactory connection;
    RedisMessageListenerContainer listener;
    ScanEngine engine;

    @AfterEach
    void tearDown() throws Exception {
        if (engine != null) {
            engine.stop();
        }
        if (listener != null) {
            listener.destroy();
        }
        if (connection != null) {
            connection.destroy();
        }
    }

    @Test
    void aBurstForShardsHeldElsewhereIsPublishedInAFewMessages() {
        new OrderTable(dataSource).recreate(SHARDS, true).coordinationTables();
        connection = RedisConnections.shared();
        AtomicInteger messages = new AtomicInteger();
        Set<String> shardsSeen = ConcurrentHashMap.newKeySet();
        listener = new RedisMessageListenerContainer();
        listener.setConnectionFactory(connection);
        // messages reach the listener in the order Redis delivers them (the default runs each on a thread of
        // its own), so that the last message below comes after every one published before it
        listener.setTaskExecutor(Runnable::run);
        listener.addMessageListener(
                (message, pattern) -> {
                    messages.incrementAndGet();
                    shardsSeen.addAll(List.of(new String(message.getBody(), StandardCharsets.UTF_8).split(",")));
                },
                new ChannelTopic("scan:{order-sms}:wake"));
        listener.afterPropertiesSet();
        listener.start();
        // node 1 of 2 holds the odd shards only: wake-ups of shards 2 and 4 go to Redis
        TaskHandler.PerRow handler = (row, ctx) -> null;
        engine = new ScanEngine(
                        List.of(new ScanEngine.ScanTask(WakeNodeMain.task(SHARDS), handler)),
                        new JdbcTaskStore(dataSource),
                        new StaticShardCoordinator(1, 2, ScanClock.system()),
                        WakeNodeMain.settings("node-1"),
                        ScanClock.system(),
                        ScanListener.NONE)
                .wakeThrough(new RedisWakeChannel(connection));
        engine.start();
        ScanTasks tasks = new ScanTasks(engine);
        // the subscription is live once a first wake-up arrives
        await("the subscription").pollInterval(Duration.ofMillis(100)).until(() -> {
            tasks.wake("order-sms", 2L);
            return messages.get() > 0;
        });
        int before = messages.get();

        for (int i = 0; i < BURST; i++) {
            tasks.wake("order-sms", i % 2 == 0 ? 2L : 4L);
        }
        // one publisher thread sends the queue in order: once a wake-up queued after the burst arrived,
        // every message of the burst did (the last one may carry it too, or it adds one message)
        tasks.wake("order-sms", 6L);
        await("the wake-up queued after the burst").until(() -> shardsSeen.contains("6"));
        shardsSeen.remove("6");
        int sent = messages.get() - before;
        System.out.printf("WakePublishCoalescingTests: %d wake-ups published in %d messages%n", BURST, sent);
        assertThat(sent).as("messages for %d wake-ups", BURST).isBetween(1, BURST / 10);
        assertThat(shardsSeen).as("shards named").containsExactlyInAnyOrder("2", "4");
    }
}
