package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.spi.RangeCommit;
import io.shardscan.core.spi.RangeFailure;
import io.shardscan.core.spi.RangeLease;
import io.shardscan.core.spi.RangeProgress;
import io.shardscan.core.spi.SchemaReport;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.UserTable;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract of the range stores ({@link JdbcRangeLedger},
 * {@link JdbcRangeFailures}, {@link JdbcRangeTable}), run on every database through a subclass.
 */
public abstract class RangeStoreContractTests {

    private static final Duration HOUR = Duration.ofHours(1);

    protected abstract DataSource createDataSource();

    protected DataSource dataSource;
    protected UserTable users;
    protected RangeTask task;
    private JdbcRangeLedger ledger;
    private JdbcRangeFailures failures;
    private JdbcRangeTable table;
    private String name;

    @BeforeEach
    void setUp() {
        dataSource = createDataSource();
        new OrderTable(dataSource).coordinationTables();
        users = new UserTable(dataSource).recreate();
        name = "range-" + System.nanoTime();
        task = new RangeTask(
                TaskDefinition.builder(name)
                        .table("tb_user")
                        .idColumn("user_id")
                        .build(),
                100,
                Duration.ofMinutes(5),
                RunMode.ONCE);
        ledger = new JdbcRangeLedger(dataSource, Engines.STATEMENT_TIMEOUT);
        failures = new JdbcRangeFailures(dataSource, Engines.STATEMENT_TIMEOUT);
        table = new JdbcRangeTable(dataSource, Engines.STATEMENT_TIMEOUT);
    }

    @Test
    void theTableGivesItsLowestAndHighestId() {
        users.insertWithGaps(10, 50, 3);
        assertThat(table.minId(task)).isEqualTo(13);
        assertThat(table.maxId(task)).isEqualTo(10 + 3 * 48);
    }

    @Test
    void anEmptyTableHasNoIds() {
        assertThat(table.minId(task)).isEqualTo(Long.MAX_VALUE);
        assertThat(table.maxId(task)).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void aRangeOpensOnce() {
        assertThat(ledger.open(name, 1, 1, 100, "node-a")).contains(new RangeLease(1, 100, 0, 1));
        assertThat(ledger.open(name, 1, 1, 100, "node-b")).isEmpty();
        assertThat(ledger.open(name, 2, 1, 100, "node-b")).isPresent();
    }

    @Test
    void aStaleOwnersWritesChangeNothing() {
        RangeLease stale = ledger.open(name, 1, 1, 100, "node-a").orElseThrow();
        ledger.commit(name, new RangeCommit(1, 1, stale.epoch(), 20, 20, List.of(), false));

        List<RangeLease> taken =
                await().until(() -> ledger.takeOver(name, 1, "node-b", Duration.ZERO, HOUR, 5), t -> !t.isEmpty());
        assertThat(taken).containsExactly(new RangeLease(1, 100, 20, 2));

        RangeFailure failure = new RangeFailure(30, "boom", 3, Instant.now());
        assertThat(ledger.commit(name, new RangeCommit(1, 1, stale.epoch(), 50, 30, List.of(failure), false)))
                .isFalse();
        assertThat(ledger.heartbeat(name, 1, "node-a", Map.of(1L, stale.epoch())))
                .isEmpty();
        assertThat(ledger.progress(name, 1)).isEqualTo(new RangeProgress(1, 0, 20, 0, 20));
        assertThat(failures.count(name, 1)).isZero();

        assertThat(ledger.commit(name, new RangeCommit(1, 1, 2, 100, 80, List.of(failure), true)))
                .isTrue();
        assertThat(ledger.progress(name, 1)).isEqualTo(new RangeProgress(1, 1, 100, 1, 100));
        assertThat(ledger.takeOver(name, 1, "node-c", Duration.ZERO, Duration.ZERO, 5))
                .as("a finished range is never taken over")
                .isEmpty();
    }

    @Test
    void aLiveOwnersRangeIsTakenOverOnlyOnceItStalls() {
        RangeLease lease = ledger.open(name, 1, 101, 200, "node-a").orElseThrow();
        ledger.commit(name, new RangeCommit(1, 101, lease.epoch(), 109, 9, List.of(), false));
        assertThat(ledger.heartbeat(name, 1, "node-a", Map.of(101L, lease.epoch())))
                .containsExactly(101L);
        assertThat(ledger.takeOver(name, 1, "node-b", HOUR, HOUR, 5)).isEmpty();

        // the heartbeat goes on, the position does not move
        List<RangeLease> taken = await().until(
                        () -> {
                            ledger.heartbeat(name, 1, "node-a", Map.of(101L, lease.epoch()));
                            return ledger.takeOver(name, 1, "node-b", HOUR, Duration.ofMillis(300), 5);
                        },
                        t -> !t.isEmpty());
        assertThat(taken).containsExactly(new RangeLease(101, 200, 109, 2));
        assertThat(ledger.heartbeat(name, 1, "node-a", Map.of(101L, lease.epoch())))
                .isEmpty();
        assertThat(ledger.heartbeat(name, 1, "node-b", Map.of(101L, 2L))).containsExactly(101L);
    }

    @Test
    void progressSumsTheRunsRanges() {
        RangeLease a = ledger.open(name, 1, 1, 100, "node-a").orElseThrow();
        RangeLease b = ledger.open(name, 1, 101, 200, "node-b").orElseThrow();
        ledger.open(name, 2, 1, 100, "node-b").orElseThrow();
        assertThat(ledger.progress(name, 1)).isEqualTo(new RangeProgress(2, 0, 0, 0, 0));
        ledger.commit(name, new RangeCommit(1, 1, a.epoch(), 100, 70, List.of(), true));
        ledger.commit(name, new RangeCommit(1, 101, b.epoch(), 150, 40, List.of(), false));
        assertThat(ledger.progress(name, 1)).isEqualTo(new RangeProgress(2, 1, 110, 0, 150));
        assertThat(ledger.progress(name, 3)).isEqualTo(RangeProgress.NONE);
    }

    /**
     * Eight nodes, each on a range of its own, commit at once the first failures of a run, two
     * commits of two failures each, in ten runs: every commit is written (none is lost to a
     * deadlock of two nodes recording new failures next to each other), and every failure is
     * listed.
     */
    @Test
    void firstFailuresCommittedAtOnceByManyNodesAreAllWritten() throws Exception {
        int nodes = 8;
        ExecutorService pool = Executors.newFixedThreadPool(nodes);
        try {
            for (long run = 1; run <= 10; run++) {
                long r = run;
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Integer>> written = new ArrayList<>();
                for (int n = 0; n < nodes; n++) {
                    RangeLease lease = ledger.open(name, run, n * 100 + 1, n * 100 + 100, "node-" + n)
                            .orElseThrow();
                    written.add(pool.submit(() -> {
                        start.await();
                        int committed = 0;
                        for (long at = lease.start(); at < lease.start() + 10; at += 5) {
                            List<RangeFailure> failed = List.of(
                                    new RangeFailure(at + 1, "boom", 1, Instant.now()),
                                    new RangeFailure(at + 3, "boom", 1, Instant.now()));
                            RangeCommit commit =
                                    new RangeCommit(r, lease.start(), lease.epoch(), at + 4, 5, failed, false);
                            committed += ledger.commit(name, commit) ? 1 : 0;
                        }
                        return committed;
                    }));
                }
                start.countDown();
                for (Future<Integer> committed : written) {
                    assertThat(committed.get(60, TimeUnit.SECONDS))
                            .as("run %d", run)
                            .isEqualTo(2);
                }
                assertThat(failures.count(name, run)).as("run %d", run).isEqualTo(nodes * 2 * 2);
                assertThat(ledger.progress(name, run).failed()).isEqualTo(nodes * 2 * 2);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void failuresAreListedTakenOnceAndRecordedAgain() {
        RangeLease lease = ledger.open(name, 1, 1, 100, "node-a").orElseThrow();
        String longError = "x".repeat(2000);
        ledger.commit(
                name,
                new RangeCommit(
                        1,
                        1,
                        lease.epoch(),
                        10,
                        10,
                        List.of(
                                new RangeFailure(3, "boom", 16, Instant.now()),
                                new RangeFailure(7, longError, 16, Instant.now())),
                        false));
        assertThat(failures.count(name, 1)).isEqualTo(2);
        assertThat(failures.recent(name, 1, 1)).hasSize(1);
        assertThat(failures.recent(name, 1, 10)).extracting(RangeFailure::id).containsExactlyInAnyOrder(3L, 7L);
        assertThat(failures.recent(name, 1, 10))
                .filteredOn(f -> f.id() == 7)
                .singleElement()
                .satisfies(f -> assertThat(f.error()).hasSize(512));

        assertThat(failures.take(name, 1, 3)).isTrue();
        assertThat(failures.take(name, 1, 3)).isFalse();
        failures.record(name, 1, new RangeFailure(3, "boom again", 17, Instant.now()));
        failures.record(name, 1, new RangeFailure(3, "boom once more", 18, Instant.now()));
        assertThat(failures.count(name, 1)).isEqualTo(2);
        assertThat(failures.recent(name, 1, 10))
                .filteredOn(f -> f.id() == 3)
                .singleElement()
                .satisfies(f -> assertThat(f.attempts()).isEqualTo(18));
    }

    @Test
    void pagesReadARangeInIdOrder() {
        users.insertWithGaps(1, 30, 1);
        List<Row> page = table.page(task, 5, 20, 4);
        assertThat(page).extracting(Row::id).containsExactly(6L, 7L, 9L, 10L);
        assertThat(page.get(0).columns()).containsEntry("name", "user-5");
        assertThat(table.page(task, 20, 29, 100))
                .extracting(Row::id)
                .containsExactly(21L, 23L, 24L, 25L, 26L, 27L, 28L);
        assertThat(table.rows(task, List.of(9L, 3L, 8L))).extracting(Row::id).containsExactly(3L, 9L);
        assertThat(table.maxId(task)).isEqualTo(30);
        SchemaReport report = table.inspect(task);
        assertThat(report.problems()).isEmpty();
        assertThat(report.missingColumns()).isEmpty();
        assertThat(report.indexPresent())
                .as("the primary key leads with the id")
                .isTrue();
        assertThat(report.columns())
                .extracting(c -> c.toLowerCase(java.util.Locale.ROOT))
                .containsExactly("user_id", "name");
    }

    @Test
    void aMissingTableOrANonNumericIdIsAProblem() {
        RangeTask missing = new RangeTask(
                TaskDefinition.builder(name)
                        .table("tb_nobody")
                        .idColumn("user_id")
                        .build(),
                100,
                Duration.ofMinutes(5),
                RunMode.ONCE);
        assertThat(table.inspect(missing).tableExists()).isFalse();
        RangeTask byName = new RangeTask(
                TaskDefinition.builder(name).table("tb_user").idColumn("name").build(),
                100,
                Duration.ofMinutes(5),
                RunMode.ONCE);
        assertThat(table.inspect(byName).problems())
                .singleElement()
                .asString()
                .containsIgnoringCase("id-column name of tb_user")
                .contains("whole-number");
        RangeTask noColumn = new RangeTask(
                TaskDefinition.builder(name).table("tb_user").idColumn("id").build(),
                100,
                Duration.ofMinutes(5),
                RunMode.ONCE);
        assertThat(table.inspect(noColumn).missingColumns()).containsExactly("id");
    }
}
