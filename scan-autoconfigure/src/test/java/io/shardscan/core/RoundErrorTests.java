package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.RecordingTaskStore;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An {@link Error} in a round's write-back (a {@code NoClassDefFoundError} after the jar was
 * replaced under a running node) fails the round like a store exception: logged at ERROR with its
 * cause, and its shard's tier waits {@link RoundFailure#BACK_OFF} before it runs the same rows again,
 * instead of a dead round thread and the rows handled again and again with nothing written back.
 */
class RoundErrorTests {

    static final int ROWS = 200;

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final CapturedLog roundLog = new CapturedLog("io.shardscan.core.Round");

    final DataSource dataSource = TestServers.h2("round_error");
    final OrderTable table = new OrderTable(dataSource).recreate(4, true).coordinationTables();

    @Test
    void anErrorInTheWriteBackBacksOffAndRunsNoRowInALoop() {
        table.insert(ROWS, 50, Instant.now().minusSeconds(5));
        TaskDefinition task = TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(4)
                .build();
        Map<Object, AtomicInteger> calls = new ConcurrentHashMap<>();
        RecordingTaskStore store = new RecordingTaskStore(new JdbcTaskStore(dataSource), "order_id")
                .failWriteBacks(
                        Duration.ofSeconds(8),
                        () -> new NoClassDefFoundError("io/shardscan/sample/OrderSms (the jar was replaced)"));
        EngineSettings settings = new EngineSettings(
                "node-1", Engines.FAST_TTL, Engines.FAST_RENEW, Engines.FAST_TTL, Duration.ofSeconds(10));
        ScanEngine engine = engines.start(new ScanEngine(
                List.of(new ScanEngine.ScanTask(task, (TaskHandler.PerRow) (row, ctx) -> {
                    calls.computeIfAbsent(row.id(), id -> new AtomicInteger()).incrementAndGet();
                    return null;
                })),
                store,
                new JdbcShardCoordinator(dataSource),
                settings,
                ScanClock.system(),
                ScanListener.NONE));

        // an Error escaping a round thread must not fail the test by itself: what counts is what the rows saw
        await().dontCatchUncaughtExceptions()
                .atMost(TestTime.scaled(Duration.ofSeconds(60)))
                .until(() -> table.count("status = 1") == ROWS);

        assertThat(calls).hasSize(ROWS);
        assertThat(calls.values())
                .as("each row ran at most once during the 8 s of failing write-backs and once after")
                .allSatisfy(count -> assertThat(count.get()).isLessThanOrEqualTo(2));
        assertThat(roundLog.messages(Level.SEVERE))
                .anyMatch(m -> m.contains("round failed, its rows stay pending and are fetched again in PT10S")
                        && m.contains("java.lang.NoClassDefFoundError: io/shardscan/sample/OrderSms")
                        && m.contains("Restart the node"));
        assertThat(engine.task("orders").isRunning()).isTrue();
    }
}
