package io.shardscan.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.ScanTasks;
import io.shardscan.core.spi.Requeue;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.ChaosTests;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.RedisConnections;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.TestTime;
import io.shardscan.testsupport.WakeNodeMain;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A requeue through one node wakes the owner of the requeued rows' shards on the other node: the
 * rows are due at once, not at the owner's next tier-0 poll a minute later. Two engines on Redis
 * coordination and the Redis wake channel, one PostgreSQL database.
 */
@ChaosTests
class RequeueWakeUpTests {

    static final int SHARDS = 8;
    static final Duration SOON = Duration.ofSeconds(15);

    @RegisterExtension
    final Engines engines = new Engines();

    final DataSource dataSource = TestServers.postgresDatabase("requeue_wake");
    final OrderTable table = new OrderTable(dataSource).recreate(SHARDS, true).coordinationTables();
    final String name = "requeue-wake-" + System.nanoTime();
    final List<LettuceConnectionFactory> connections = new ArrayList<>();
    final AtomicLong seq = new AtomicLong();

    @AfterEach
    void closeConnections() {
        engines.afterEach(null);
        connections.forEach(LettuceConnectionFactory::destroy);
    }

    @Test
    void aRequeueThroughOneNodeWakesTheOwnerOnTheOther() {
        ScanEngine a = node("node-a");
        ScanEngine b = node("node-b");
        await("both nodes hold shards")
                .atMost(TestTime.scaled(Duration.ofSeconds(60)))
                .until(() -> !a.task(name).ownedShards().isEmpty()
                        && !b.task(name).ownedShards().isEmpty()
                        && a.task(name).ownedShards().size()
                                        + b.task(name).ownedShards().size()
                                == SHARDS);
        long key = b.task(name).ownedShards().keySet().iterator().next();
        // the other node's subscription is live once a wake-up from this node reaches it
        ScanTasks tasks = new ScanTasks(a);
        insert(1, key, 0);
        await("a wake-up through node A reaches node B")
                .atMost(TestTime.scaled(Duration.ofSeconds(60)))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> {
                    tasks.wake(name, key);
                    return table.effects() == 1;
                });

        insert(2, key, 2);
        assertThat(a.task(name).requeue(Requeue.rows(true, List.of(2L))))
                .as("rows requeued by id")
                .isEqualTo(1);
        await("the row requeued by id is handled by its owner at once")
                .atMost(SOON)
                .until(() -> table.effects() == 2);

        insert(3, key, 2);
        assertThat(a.task(name).requeueDead()).as("dead rows requeued").isEqualTo(1);
        await("the dead rows requeued all at once are handled by their owner at once")
                .atMost(SOON)
                .until(() -> table.effects() == 3);
        assertThat(table.jdbc().queryForList("SELECT DISTINCT node FROM effect", String.class))
                .containsExactly("node-b");
    }

    private ScanEngine node(String node) {
        // tier 0 rests a minute: only a wake-up brings a row in sooner
        TaskDefinition task = TaskDefinition.builder(name)
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS)
                .tiers(List.of(new Tier(0, 0, WakeNodeMain.TIER_INTERVAL), new Tier(1, 5, WakeNodeMain.TIER_INTERVAL)))
                .build();
        LettuceConnectionFactory connection = RedisConnections.shared();
        connections.add(connection);
        TaskHandler.PerRow handler = (row, ctx) -> table.recordEffect(row, ctx, seq.incrementAndGet());
        return engines.start(new ScanEngine(
                        List.of(new ScanEngine.ScanTask(task, handler)),
                        new JdbcTaskStore(dataSource),
                        new RedisShardCoordinator(connection),
                        WakeNodeMain.settings(node),
                        ScanClock.system(),
                        ScanListener.NONE)
                .wakeThrough(new RedisWakeChannel(connection)));
    }

    private void insert(long id, long key, int status) {
        table.jdbc()
                .update(
                        "INSERT INTO tb_order (order_id, user_id, phone, status, retry_count, updated_at)"
                                + " VALUES (?, ?, '+1555', ?, ?, ?)",
                        id,
                        key,
                        status,
                        status == 2 ? 5 : 0,
                        Timestamp.from(Instant.now()));
    }
}
