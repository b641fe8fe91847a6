package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.SettableClock;
import io.shardscan.testsupport.TestServers;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Row failures are logged once per distinct message, not once per row and retry. The engine logs
 * through {@link System.Logger}, which with no other {@code LoggerFinder} on the test class path
 * is java.util.logging, so a JUL handler on the lane's logger sees every line.
 */
class FailureLogTests {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    static final long MINUTE = Duration.ofMinutes(1).toNanos();

    @RegisterExtension
    final Engines engines = new Engines();

    final Logger laneLogger = Logger.getLogger(Lane.class.getName());
    final List<LogRecord> records = new CopyOnWriteArrayList<>();
    final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };
    Level previousLevel;

    @BeforeEach
    void capture() {
        previousLevel = laneLogger.getLevel();
        laneLogger.setLevel(Level.ALL);
        laneLogger.addHandler(capture);
    }

    @AfterEach
    void release() {
        laneLogger.removeHandler(capture);
        laneLogger.setLevel(previousLevel);
    }

    @Test
    void aThousandRowsFailingTheSameWayLogOneWarning() {
        DataSource dataSource = TestServers.h2("failures");
        OrderTable table = new OrderTable(dataSource).recreate(8, true).coordinationTables();
        table.insert(1000, 97, T0);
        TaskDefinition task = TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(8)
                .workers(4)
                .build();
        engines.start(
                "node-1",
                dataSource,
                task,
                (TaskHandler.PerRow) (row, ctx) -> {
                    throw new IllegalStateException("gateway unavailable");
                },
                new SettableClock(T0.plusSeconds(1)),
                ScanListener.NONE,
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
        await().atMost(Duration.ofSeconds(30)).until(() -> table.count("retry_count = 1") == 1000);

        List<LogRecord> warnings =
                records.stream().filter(r -> r.getLevel() == Level.WARNING).toList();
        assertThat(warnings).singleElement().satisfies(warning -> {
            assertThat(warning.getMessage())
                    .matches("Task orders row \\d+ failed at attempt 1: java.lang.IllegalStateException:"
                            + " gateway unavailable");
            assertThat(warning.getThrown()).hasMessage("gateway unavailable");
        });
        assertThat(records.stream().filter(r -> r.getLevel() == Level.FINE)).hasSize(999);
    }

    @Test
    void warnsAgainAfterTheIntervalWithTheSuppressedCount() {
        FailureLog log = new FailureLog();
        assertThat(log.record("boom", 1, 0)).isZero();
        for (int i = 1; i <= 517; i++) {
            assertThat(log.record("boom", 1, i)).isEqualTo(-1);
        }
        assertThat(log.record("other", 1, 600)).isZero();
        assertThat(log.record("boom", 1, MINUTE)).isEqualTo(517);
        assertThat(log.record("boom", 1, MINUTE + 1)).isEqualTo(-1);
        assertThat(log.record("boom", 1, 2 * MINUTE)).isEqualTo(1);
    }

    @Test
    void countsEveryRowOfAFailedBatch() {
        FailureLog log = new FailureLog();
        log.record("batch rejected", 40, 0);
        log.record("batch rejected", 40, 1);
        assertThat(log.record("batch rejected", 40, MINUTE)).isEqualTo(40);
    }

    @Test
    void remembersABoundedNumberOfMessages() {
        FailureLog log = new FailureLog();
        log.record("first", 1, 0);
        for (int i = 0; i < FailureLog.MAX_MESSAGES; i++) {
            log.record("message " + i, 1, 0);
        }
        assertThat(log.record("first", 1, 1))
                .as("forgotten, so it warns as if new")
                .isZero();
    }
}
