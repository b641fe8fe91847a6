package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.task.Ordering;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Row failures are logged once per kind (exception class and throwing site), not once per row,
 * retry or message. The engine logs
 * through {@link System.Logger}, which with no other {@code LoggerFinder} on the test class path
 * is java.util.logging, so a JUL handler on the lane's logger sees every line.
 */
class FailureLogTests {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    static final long MINUTE = Duration.ofMinutes(1).toNanos();

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final CapturedLog log = new CapturedLog(Lane.class.getName());

    @RegisterExtension
    final CapturedLog runnerLog = new CapturedLog(TaskRunner.class.getName());

    @Test
    void fiveThousandRowsFailingTheSameWayWithTheirOwnMessagesLogOneWarning() {
        DataSource dataSource = TestServers.h2("failures");
        OrderTable table = new OrderTable(dataSource).recreate(8, true).coordinationTables();
        table.insert(5000, 97, T0);
        TaskDefinition task = TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(8)
                .workers(4)
                // every row fails or not on its own; none waits behind another
                .ordering(Ordering.NONE)
                .build();
        engines.start(
                "node-1",
                dataSource,
                task,
                (TaskHandler.PerRow) (row, ctx) -> {
                    throw new IllegalStateException("order " + row.id() + " refused");
                },
                new SettableScanClock(T0.plusSeconds(1)),
                ScanListener.NONE,
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
        await().atMost(TestTime.scaled(Duration.ofSeconds(60))).until(() -> table.count("retry_count = 1") == 5000);

        List<LogRecord> warnings = log.records(Level.WARNING);
        assertThat(warnings).singleElement().satisfies(warning -> {
            assertThat(warning.getMessage())
                    .matches("Task orders row (\\d+) failed at attempt 1: java.lang.IllegalStateException:"
                            + " order \\1 refused");
            assertThat(warning.getThrown()).isInstanceOf(IllegalStateException.class);
        });
        List<LogRecord> debug = log.records(Level.FINE);
        assertThat(debug).hasSize(4999).allSatisfy(line -> assertThat(line.getMessage())
                .as("keeps the row id")
                .matches("Task orders row (\\d+) failed again \\(retry 0\\): .*order \\1 refused"));
    }

    @Test
    void aKindIsTheExceptionClassAndTheSiteThatThrewIt() {
        FailureLog log = new FailureLog();
        assertThat(log.record(refused(1), 1, 0)).isZero();
        assertThat(log.record(refused(2), 1, 1)).as("same class, same site").isEqualTo(-1);
        assertThat(log.record(refusedElsewhere(3), 1, 2)).as("another site").isZero();
        assertThat(log.record(new IllegalArgumentException("order 4 refused"), 1, 3))
                .as("another class")
                .isZero();
        assertThat(log.record(refused(5), 1, MINUTE)).isEqualTo(1);
    }

    @Test
    void aFailureWithoutStackTraceIsKnownByItsClass() {
        RuntimeException bare = new RuntimeException("order 1 refused", null, false, false) {};
        assertThat(FailureLog.kindOf(bare)).isEqualTo(bare.getClass().getName());
    }

    private static IllegalStateException refused(long order) {
        return new IllegalStateException("order " + order + " refused");
    }

    private static IllegalStateException refusedElsewhere(long order) {
        return new IllegalStateException("order " + order + " refused");
    }

    @Test
    void rowsGivenUpAreSaidOnceWithHowToRunThemAgain() {
        DataSource dataSource = TestServers.h2("dead_rows");
        OrderTable table = new OrderTable(dataSource).recreate(8, true).coordinationTables();
        table.insert(200, 97, T0);
        TaskDefinition task = TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(8)
                .build();
        engines.start("node-1", dataSource, task, (TaskHandler.PerRow) (row, ctx) ->
                row.id() % 10 == 0 ? Outcome.dead("bad phone number of row " + row.id()) : Outcome.done());
        await().until(() -> table.count("status <> 0") == 200);

        assertThat(table.count("status = 2")).isEqualTo(20);
        assertThat(log.records(Level.WARNING)).singleElement().satisfies(warning -> assertThat(warning.getMessage())
                .matches(
                        "Task orders row (\\d+0) is dead after attempt 1: bad phone number of row \\1\\. Its key's later"
                                + " rows go on; POST /actuator/scan/orders \\{\"action\": \"requeue-dead\"\\} runs"
                                + " dead rows again"));
    }

    @Test
    void failuresThatStopWithinTheIntervalAreStillCountedInAWarningLine() {
        DataSource dataSource = TestServers.h2("failures_stop");
        new OrderTable(dataSource).recreate(8, true).coordinationTables();
        TaskDefinition task = TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(8)
                .build();
        ScanEngine engine =
                engines.start("node-1", dataSource, task, (TaskHandler.PerRow) (row, ctx) -> Outcome.done());
        // a kind warned about two minutes ago, then failing 7 more times and no more
        FailureLog failures = engine.task("orders").failures();
        long twoMinutesAgo = System.nanoTime() - 2 * MINUTE;
        failures.record("java.lang.IllegalStateException at Sms.send(Sms.java:12)", 1, twoMinutesAgo);
        failures.record("java.lang.IllegalStateException at Sms.send(Sms.java:12)", 7, twoMinutesAgo + 1);

        await().untilAsserted(() -> assertThat(runnerLog.warnings())
                .containsExactly("Task orders: and 7 more failed the same way (java.lang.IllegalStateException at"
                        + " Sms.send(Sms.java:12)) since its last WARN line; each is logged at DEBUG"));
    }

    @Test
    void aKindOverdueWithFailuresSinceItsLastWarningIsCountedOnce() {
        FailureLog log = new FailureLog();
        log.record("boom", 1, 0);
        log.record("boom", 3, 1);
        log.record("quiet", 1, 2);
        assertThat(log.overdue(MINUTE - 1)).as("not an interval yet").isEmpty();
        assertThat(log.overdue(MINUTE)).containsExactly(java.util.Map.entry("boom", 3L));
        assertThat(log.overdue(MINUTE + 1)).as("counted once").isEmpty();
        assertThat(log.record("boom", 1, MINUTE + 2))
                .as("the overdue line counts as its last WARN")
                .isEqualTo(-1);
        assertThat(log.overdue(2 * MINUTE)).containsExactly(java.util.Map.entry("boom", 1L));
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
        for (int i = 0; i < FailureLog.MAX_KINDS; i++) {
            log.record("message " + i, 1, 0);
        }
        assertThat(log.record("first", 1, 1))
                .as("forgotten, so it warns as if new")
                .isZero();
    }
}
