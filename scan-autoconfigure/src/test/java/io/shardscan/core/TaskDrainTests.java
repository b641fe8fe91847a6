package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A drain waits for passes that read the table after it began: a pass already in flight, which
 * read the table before the rows were there, ends during the drain but does not count, and the
 * tier it triggered stays due instead of resting for its interval; a tier that was not in flight
 * needs only its own next pass. On H2.
 */
class TaskDrainTests {

    final DataSource dataSource = TestServers.h2("drain");
    final OrderTable table = new OrderTable(dataSource).recreate(1, true).coordinationTables();
    final TaskDefinition task = TaskDefinition.builder("orders")
            .table("tb_order")
            .idColumn("order_id")
            .shardKeyColumn("user_id")
            .shards(1)
            .tiers(List.of(Tier.of("0", Duration.ofHours(1)), Tier.of("1-3", Duration.ofHours(1))))
            .build();
    ScanEngine engine;

    @AfterEach
    void stop() {
        if (engine != null) {
            engine.stop();
        }
    }

    @Test
    void aPassInFlightWhenTheDrainBeginsDoesNotEndIt() throws Exception {
        CountDownLatch fetched = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean holdFirstFetch = new AtomicBoolean(true);
        TaskStore real = new JdbcTaskStore(dataSource);
        // the real store; only the first fetch's answer is held back until the drain has triggered
        TaskStore store = (TaskStore) Proxy.newProxyInstance(
                TaskStore.class.getClassLoader(), new Class<?>[] {TaskStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("boundedBy")) {
                        // the rounds' bounded store would be the real one's, and its fetches would pass this hook by
                        return proxy;
                    }
                    Object result;
                    try {
                        result = method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (method.getName().equals("fetch") && holdFirstFetch.getAndSet(false)) {
                        fetched.countDown();
                        release.await(10, TimeUnit.SECONDS);
                    }
                    return result;
                });
        engine = new ScanEngine(
                List.of(new ScanEngine.ScanTask(task, (TaskHandler.PerRow) (row, ctx) -> Outcome.done())),
                store,
                new JdbcShardCoordinator(dataSource),
                new EngineSettings(
                        "node-a",
                        Duration.ofSeconds(2),
                        Duration.ofMillis(300),
                        Duration.ofSeconds(2),
                        Duration.ofSeconds(10)),
                ScanClock.system(),
                ScanListener.NONE);
        engine.start();
        assertThat(fetched.await(10, TimeUnit.SECONDS)).isTrue();
        table.insert(50, 5, Instant.now());

        CompletableFuture<Long> drained = new CompletableFuture<>();
        Thread drainer = new Thread(() -> drained.complete(engine.task("orders").drain(Duration.ofSeconds(10))));
        drainer.start();
        // the drain has read the passes and triggered once it waits; the held fetch answers (empty) after that
        await().until(() -> Arrays.stream(drainer.getStackTrace())
                .anyMatch(frame -> frame.getClassName().equals(TaskDrain.class.getName())
                        && frame.getMethodName().equals("waitUntil")));
        release.countDown();

        assertThat(drained.get(15, TimeUnit.SECONDS)).isEqualTo(50);
        assertThat(table.count("status = 1")).isEqualTo(50);
    }

    @Test
    void aDrainRightAfterStartWaitsForEveryShardToBeClaimed() {
        OrderTable table16 = new OrderTable(dataSource).recreate(16, true).coordinationTables();
        table16.insert(160, 16, Instant.now());
        ShardCoordinator real = new JdbcShardCoordinator(dataSource);
        // every claim takes 50 ms, so the first lease tick claims the 16 shards over about a second
        ShardCoordinator slowClaims = (ShardCoordinator) Proxy.newProxyInstance(
                ShardCoordinator.class.getClassLoader(),
                new Class<?>[] {ShardCoordinator.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("tryAcquire")) {
                        Thread.sleep(50); // simulated: a slow coordinator answers each claim late
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        TaskDefinition sixteen = TaskDefinition.builder("orders16")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(16)
                .build();
        engine = new ScanEngine(
                List.of(new ScanEngine.ScanTask(sixteen, (TaskHandler.PerRow) (row, ctx) -> Outcome.done())),
                new JdbcTaskStore(dataSource),
                slowClaims,
                new EngineSettings(
                        "node-a",
                        Duration.ofSeconds(6),
                        Duration.ofMillis(300),
                        Duration.ofSeconds(6),
                        Duration.ofSeconds(10)),
                ScanClock.system(),
                ScanListener.NONE);
        engine.start();

        engine.task("orders16").drain(Duration.ofSeconds(30));
        // the table, not the drain's count: the first shards claimed may run rows before the drain begins
        assertThat(table16.count("status = 1")).isEqualTo(160);
    }
}
