package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.spi.Firing;
import io.shardscan.core.spi.RangeStores;
import io.shardscan.core.spi.TaskRun;
import io.shardscan.core.task.RangeJob;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.Schedule;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.JdbcRangeCursor;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.LeaseTicks;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestTime;
import io.shardscan.testsupport.UserTable;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code schedule} on several nodes of one database, their clock a {@link SettableScanClock} moved past
 * each firing by hand (no sleep): no run before the first firing; each firing starts exactly one run
 * across three nodes; firings missed while every node was down run once, at start; a firing while the run
 * still runs is skipped; a range task's firing covers the ids there are then. One subclass per database.
 */
abstract class ScheduleContractTests {

    static final int SHARDS = 8;

    /** Half a minute past midnight: an hourly schedule's first firing is 01:00. */
    static final Instant T0 = Instant.parse("2026-01-01T00:00:30Z");

    static final Instant ONE = Instant.parse("2026-01-01T01:00:00Z");

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final CapturedLog log = new CapturedLog(ScheduleKeeper.class.getName());

    /** Runs that ended, as the node that ended each heard it: one entry per run. */
    final List<TaskRun> ended = new CopyOnWriteArrayList<>();

    final ScanListener listener = new ScanListener() {
        @Override
        public void runEnded(String task, TaskRun run) {
            ended.add(run);
        }
    };

    final SettableScanClock clock = new SettableScanClock(T0);

    DataSource dataSource;
    OrderTable table;
    TaskDefinition task;
    TaskHandler handler;

    abstract DataSource dataSource();

    void setUp(String test) {
        dataSource = dataSource();
        table = new OrderTable(dataSource).recreate(SHARDS, true).coordinationTables();
        task = TaskDefinition.builder(test + "-" + getClass().getSimpleName().toLowerCase(Locale.ROOT))
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS)
                .tiers(List.of(Tier.of("0", Duration.ofMillis(200)), Tier.of("1-2", Duration.ofMillis(200))))
                .run(RunMode.UNTIL_EMPTY)
                .schedule(Schedule.every(Duration.ofHours(1)))
                .build();
        handler = (TaskHandler.PerRow) (row, ctx) -> table.recordEffect(row, ctx, 0);
    }

    ScanEngine node(String name) {
        return engines.start(
                name,
                dataSource,
                new JdbcShardCoordinator(dataSource),
                new ScanEngine.ScanTask(task, handler),
                clock,
                listener,
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
    }

    TaskView[] views(List<ScanEngine> nodes) {
        return nodes.stream().map(n -> n.task(task.name())).toArray(TaskView[]::new);
    }

    /** Waits until every node follows run {@code id}, done. */
    void awaitDone(List<ScanEngine> nodes, long id) {
        await().atMost(TestTime.scaled(Duration.ofSeconds(120))).until(() -> nodes.stream()
                .map(n -> n.task(task.name()).run())
                .allMatch(run -> run != null && run.id() == id && run.done()));
    }

    long runIdInDatabase() {
        return table.jdbc().queryForObject("SELECT run_id FROM scan_task WHERE task = ?", Long.class, task.name());
    }

    long startedHere(List<ScanEngine> nodes) {
        return nodes.stream()
                .mapToLong(n -> n.task(task.name()).schedule().startedHere())
                .sum();
    }

    @Test
    void eachFiringStartsOneRunOnOneOfThreeNodes() {
        setUp("hourly");
        table.insert(300, 30, Instant.now());
        List<ScanEngine> nodes = List.of(node("node-a"), node("node-b"), node("node-c"));

        // before the first firing no run starts: run 0, done, and no row runs
        awaitDone(nodes, 0);
        LeaseTicks.awaitNext(3, views(nodes));
        assertThat(table.count("status = 0")).isEqualTo(300);
        assertThat(nodes.get(0).task(task.name()).schedule().nextFiring()).isEqualTo(ONE);
        assertThat(nodes.get(0).task(task.name()).schedule().last().kind()).isEqualTo(Firing.Kind.SEEN);

        clock.advance(Duration.ofHours(1));
        await().atMost(TestTime.scaled(Duration.ofSeconds(120))).until(() -> ended.size() == 1);
        awaitDone(nodes, 1);
        // every node had its chance to start a run of its own at this firing
        LeaseTicks.awaitNext(3, views(nodes));
        assertThat(runIdInDatabase()).isEqualTo(1);
        assertThat(startedHere(nodes)).isEqualTo(1);
        assertThat(ended).hasSize(1);
        assertThat(table.count("status = 1")).isEqualTo(300);
        assertThat(table.effects()).isEqualTo(300);
        for (ScanEngine node : nodes) {
            ScheduleStatus schedule = node.task(task.name()).schedule();
            assertThat(schedule.nextFiring()).isEqualTo(ONE.plus(Duration.ofHours(1)));
            assertThat(schedule.last().kind()).isEqualTo(Firing.Kind.STARTED);
        }

        // rows inserted after the run wait for the next firing, which starts the next run, once
        table.insert(1001, 100, 10, Instant.now());
        LeaseTicks.awaitNext(3, views(nodes));
        assertThat(table.count("order_id > 1000 AND status = 0")).isEqualTo(100);
        clock.advance(Duration.ofHours(1));
        await().atMost(TestTime.scaled(Duration.ofSeconds(120))).until(() -> ended.size() == 2);
        awaitDone(nodes, 2);
        LeaseTicks.awaitNext(3, views(nodes));
        assertThat(runIdInDatabase()).isEqualTo(2);
        assertThat(startedHere(nodes)).isEqualTo(2);
        assertThat(table.count("status = 1")).isEqualTo(400);
        assertThat(table.effects()).isEqualTo(400);
        assertThat(log.messages())
                .filteredOn(m -> m.contains(") starts its next run on node "))
                .hasSize(2);
    }

    /**
     * A node whose clock lags hands on a firing after the run it started elsewhere has ended: the firing's
     * record, not the run's state, says it was handled, so it starts nothing.
     */
    @Test
    void aNodeWhoseClockLagsFindsTheFiringHandledAfterTheRunEnded() {
        setUp("lagging");
        SettableScanClock lagging = new SettableScanClock(T0);
        List<ScanEngine> nodes = List.of(node("node-a"), node("node-b"));
        ScanEngine late = engines.start(
                "node-c",
                dataSource,
                new JdbcShardCoordinator(dataSource),
                new ScanEngine.ScanTask(task, handler),
                lagging,
                listener,
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
        List<ScanEngine> all = List.of(nodes.get(0), nodes.get(1), late);
        awaitDone(all, 0);

        // nothing to do: run 1 ends at once, before node-c's clock reaches the firing
        clock.advance(Duration.ofHours(1));
        await().atMost(TestTime.scaled(Duration.ofSeconds(120))).until(() -> ended.size() == 1);
        awaitDone(all, 1);
        assertThat(late.task(task.name()).schedule().nextFiring()).isEqualTo(ONE);

        lagging.advance(Duration.ofHours(1));
        await().until(() -> ONE.plus(Duration.ofHours(1))
                .equals(late.task(task.name()).schedule().nextFiring()));
        LeaseTicks.awaitNext(3, views(all));
        assertThat(runIdInDatabase()).isEqualTo(1);
        assertThat(ended).hasSize(1);
        assertThat(late.task(task.name()).schedule().startedHere()).isZero();
    }

    @Test
    void firingsMissedWhileEveryNodeWasDownRunOnceAtStart() {
        setUp("missed");
        ScanEngine first = node("node-a");
        await().until(() -> first.task(task.name()).schedule().last() != null);
        first.stop();

        // five hourly firings pass while no node runs
        table.insert(200, 20, Instant.now());
        clock.advance(Duration.ofHours(5));
        List<ScanEngine> nodes = List.of(node("node-a"), node("node-b"));
        await().atMost(TestTime.scaled(Duration.ofSeconds(120))).until(() -> ended.size() == 1);
        awaitDone(nodes, 1);
        LeaseTicks.awaitNext(3, views(nodes));
        assertThat(runIdInDatabase()).as("five missed firings, one run").isEqualTo(1);
        assertThat(table.count("status = 1")).isEqualTo(200);
        assertThat(log.messages())
                .filteredOn(m -> m.contains(") starts its next run on node "))
                .singleElement()
                .asString()
                .contains("the firing of " + ONE)
                .contains("late: it was due while no node ran the task, and the firings missed since run once");
        for (ScanEngine node : nodes) {
            assertThat(node.task(task.name()).schedule().nextFiring()).isEqualTo(Instant.parse("2026-01-01T06:00:00Z"));
        }
    }

    @Test
    void aFiringWhileTheRunStillRunsIsSkipped() throws InterruptedException {
        setUp("overlap");
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        handler = (TaskHandler.PerRow) (row, ctx) -> {
            if (row.id() == 1) {
                entered.countDown();
                release.await(TestTime.BUDGET.toMillis(), TimeUnit.MILLISECONDS);
            }
            return table.recordEffect(row, ctx, 0);
        };
        table.insert(50, 5, Instant.now());
        List<ScanEngine> nodes = List.of(node("node-a"), node("node-b"));
        awaitDone(nodes, 0);

        clock.advance(Duration.ofHours(1));
        assertThat(entered.await(TestTime.BUDGET.toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
        // run 1 is held by row 1 when the 02:00 firing comes
        clock.advance(Duration.ofHours(1));
        await().until(() -> nodes.stream()
                .allMatch(n -> n.task(task.name()).schedule().last().kind() == Firing.Kind.SKIPPED));
        assertThat(runIdInDatabase()).isEqualTo(1);
        assertThat(nodes.stream()
                        .mapToLong(n -> n.task(task.name()).schedule().skippedHere())
                        .sum())
                .isEqualTo(1);
        assertThat(log.messages())
                .filteredOn(m -> m.contains(" is skipped: "))
                .singleElement()
                .asString()
                .contains("the firing of 2026-01-01T02:00:00Z (every 1h) is skipped: run 1 (started ")
                .endsWith("still runs; next firing at 2026-01-01T03:00:00Z");

        // the run ends; the skipped firing starts nothing, the next one the next run
        release.countDown();
        awaitDone(nodes, 1);
        LeaseTicks.awaitNext(3, views(nodes));
        assertThat(runIdInDatabase()).isEqualTo(1);
        table.insert(1001, 10, 5, Instant.now());
        clock.advance(Duration.ofHours(1));
        await().atMost(TestTime.scaled(Duration.ofSeconds(120))).until(() -> ended.size() == 2);
        awaitDone(nodes, 2);
        assertThat(table.count("status = 1")).isEqualTo(60);
        assertThat(table.effects()).isEqualTo(60);
    }

    @Test
    void aRangeTasksFiringCoversTheIdsThereAreThen() {
        setUp("range");
        UserTable users = new UserTable(dataSource).recreate();
        long inserted = users.insertWithGaps(1, 2_000, 1);
        RangeStores stores =
                Engines.rangeStores(dataSource, new JdbcRangeCursor(dataSource, Engines.STATEMENT_TIMEOUT));
        RangeTask range = new RangeTask(
                        TaskDefinition.builder(task.name())
                                .table("tb_user")
                                .idColumn("user_id")
                                .pageSize(100)
                                .workers(2)
                                .tiers(List.of(new Tier(0, 2, Duration.ofMillis(200))))
                                .build(),
                        500,
                        Duration.ofMinutes(5),
                        RunMode.ONCE)
                .withSchedule(Schedule.every(Duration.ofHours(1)));
        TaskHandler.PerRow notify = (row, ctx) -> {
            users.jdbc().update("INSERT INTO notified (user_id, node, epoch) VALUES (?, ?, ?)", row.id(), "n", 1);
            return null;
        };
        List<ScanEngine> nodes = List.of(
                engines.startRange("node-a", dataSource, stores, new RangeJob(range, notify), clock),
                engines.startRange("node-b", dataSource, stores, new RangeJob(range, notify), clock));
        await().until(() -> nodes.stream()
                .allMatch(n -> n.rangeTask(task.name()).snapshot().run().id() == 0));
        assertThat(nodes.get(0).rangeTask(task.name()).snapshot().run().done()).isTrue();

        clock.advance(Duration.ofHours(1));
        await().atMost(TestTime.scaled(Duration.ofSeconds(120))).until(() -> nodes.stream()
                .map(n -> n.rangeTask(task.name()).snapshot().run())
                .allMatch(run -> run.id() == 1 && run.done()));
        assertThat(users.notifiedIds()).isEqualTo(inserted);
        assertThat(users.duplicates()).isZero();

        long more = users.insertWithGaps(10_001, 500, 1);
        clock.advance(Duration.ofHours(1));
        await().atMost(TestTime.scaled(Duration.ofSeconds(120))).until(() -> nodes.stream()
                .map(n -> n.rangeTask(task.name()).snapshot().run())
                .allMatch(run -> run.id() == 2 && run.done()));
        assertThat(runIdInDatabase()).isEqualTo(2);
        assertThat(users.missed()).isZero();
        assertThat(table.jdbc().queryForObject("SELECT COUNT(*) FROM notified", Long.class))
                .as("run 1 over the first ids, run 2 over all of them")
                .isEqualTo(inserted * 2 + more);
    }
}
