package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardscan.core.spi.Firing;
import io.shardscan.core.spi.RunCounts;
import io.shardscan.core.spi.TaskRun;
import io.shardscan.core.spi.TaskRuns;
import io.shardscan.core.spi.WriteBack;
import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.RunRange;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.testsupport.OrderTable;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the JDBC store does for runs ({@link TaskRuns}, {@link JdbcTaskStore#anyLeft}) on every
 * database: one conditional statement per change, so nodes acting at once agree. One small subclass
 * per database.
 */
abstract class TaskRunsContractTests {

    static final int SHARDS = 4;
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    OrderTable table;
    JdbcTaskStore store;
    TaskRuns runs;
    final TaskDefinition task = TaskDefinition.builder("orders")
            .table("tb_order")
            .idColumn("order_id")
            .shardKeyColumn("user_id")
            .shards(SHARDS)
            .run(RunMode.UNTIL_EMPTY)
            .build();

    abstract DataSource dataSource();

    @BeforeEach
    void setUp() {
        table = new OrderTable(dataSource()).recreate(SHARDS, true).coordinationTables();
        table.insert(40, 1000, T0);
        store = new JdbcTaskStore(dataSource());
        store.inspect(task);
        runs = store.runs();
    }

    @Test
    void theFirstRunStartsOnceEndsOnceAndStaysDoneUntilANewRunStarts() {
        assertThat(runs.current(task)).isNull();
        TaskRun first = runs.startFirst(task, "node-a", T0, null);
        assertThat(runs.startFirst(task, "node-b", T0.plusSeconds(1), null))
                .as("a second node joins the run the first one started")
                .isEqualTo(first);
        assertThat(first.id()).isEqualTo(1);
        assertThat(first.state()).isEqualTo(TaskRun.State.RUNNING);
        assertThat(first.startedBy()).isEqualTo("node-a");
        assertThat(first.startedAt()).isEqualTo(T0);

        RunCounts counts = new RunCounts(38, 4, 2);
        assertThat(runs.finish(task, 1, counts, "node-b", T0.plusSeconds(12))).isTrue();
        assertThat(runs.finish(task, 1, new RunCounts(1, 1, 1), "node-a", T0.plusSeconds(13)))
                .as("only one node ends a run")
                .isFalse();
        TaskRun done = runs.current(task);
        assertThat(done.state()).isEqualTo(TaskRun.State.DONE);
        assertThat(done.counts()).isEqualTo(counts);
        assertThat(done.endedBy()).isEqualTo("node-b");
        assertThat(done.duration(T0.plusSeconds(60))).isEqualTo(Duration.ofSeconds(12));
        assertThat(runs.startFirst(task, "node-a", T0.plusSeconds(20), null))
                .as("a node that restarts finds the run done")
                .isEqualTo(done);

        TaskRun second = runs.start(task, 1, "node-a", T0.plusSeconds(30), null);
        assertThat(second.id()).isEqualTo(2);
        assertThat(second.state()).isEqualTo(TaskRun.State.RUNNING);
        assertThat(second.counts()).isEqualTo(RunCounts.NONE);
        assertThat(second.endedAt()).isNull();
        assertThat(runs.finish(task, 1, counts, "node-b", T0.plusSeconds(31)))
                .as("an old run does not end the current one")
                .isFalse();
        assertThat(runs.current(task)).isEqualTo(second);
        assertThat(runs.start(task, 1, "node-b", T0.plusSeconds(32), null))
                .as("a node that starts a run after one that was replaced meanwhile gets the current run")
                .isEqualTo(second);
    }

    /** A range task's run keeps the ids and range size of its start, in the same columns as any run. */
    @Test
    void aRangeRunKeepsTheIdsAndRangeSizeItStartedWith() {
        TaskDefinition users = TaskDefinition.builder("users")
                .table("tb_order")
                .idColumn("order_id")
                .build();
        RunRange first = new RunRange(13, 154, 1_000, "jdbc");
        TaskRun run = runs.startFirst(users, "node-a", T0, first);
        assertThat(run.range()).isEqualTo(first);
        assertThat(runs.startFirst(users, "node-b", T0, new RunRange(1, 9_999, 50, "redis")))
                .as("the first node's snapshot and range size hold")
                .isEqualTo(run);
        assertThat(runs.finish(users, 1, new RunCounts(120, 2, 0), "node-b", T0.plusSeconds(5)))
                .isTrue();
        assertThat(runs.current(users).range()).isEqualTo(first);

        RunRange next = new RunRange(13, 10_000, 500, "redis");
        TaskRun second = runs.start(users, 1, "node-a", T0.plusSeconds(9), next);
        assertThat(second.id()).isEqualTo(2);
        assertThat(second.range()).isEqualTo(next);
        assertThat(runs.start(users, 1, "node-b", T0.plusSeconds(9), new RunRange(1, 5, 5, "jdbc")))
                .as("of two nodes that start the next run at once, one does")
                .isEqualTo(second);
        assertThat(runs.current(task))
                .as("a status-column task's run has no range")
                .isNull();
        assertThat(runs.startFirst(task, "node-a", T0, null).range()).isNull();
    }

    /** Eight nodes at once, released together: one first run, ended by exactly one of them. */
    @Test
    void nodesActingAtOnceStartOneFirstRunAndEndItOnce() throws Exception {
        assertThat(atOnce(node -> runs.startFirst(task, node, T0, null).id())).containsOnly(1L);
        assertThat(atOnce(node -> runs.finish(task, 1, new RunCounts(40, 0, 0), node, T0.plusSeconds(5))))
                .containsOnlyOnce(true);
        assertThat(runs.current(task).state()).isEqualTo(TaskRun.State.DONE);
    }

    /**
     * Eight nodes starting the first run by hand at once (each saw none) all get run 1: the ones
     * whose insert met another's, or whose transaction was a deadlock's victim, run it once more and
     * find that run current.
     */
    @Test
    void nodesStartingTheFirstRunByHandAtOnceAllGetIt() throws Exception {
        assertThat(atOnce(node -> runs.start(task, 0, node, T0, null).id())).containsOnly(1L);
    }

    /**
     * A schedule's first sight makes its record once, and gives a task that never ran run 0, done, so
     * that nothing runs before its first firing; the record's time is stored in UTC, whatever the JVM's zone.
     */
    @Test
    void aScheduleIsFirstSeenOnceAndATaskThatNeverRanGetsRunZeroDone() {
        Firing seen = runs.firstSeen(task, "node-a", T0, null);
        assertThat(seen).isEqualTo(new Firing(T0, "node-a", Firing.Kind.SEEN));
        assertThat(runs.firstSeen(task, "node-b", T0.plusSeconds(5), null))
                .as("a second node finds the first one's record")
                .isEqualTo(seen);
        TaskRun zero = runs.current(task);
        assertThat(zero.id()).isZero();
        assertThat(zero.state()).isEqualTo(TaskRun.State.DONE);
        assertThat(zero.counts()).isEqualTo(RunCounts.NONE);
        assertThat(zero.range()).isNull();
        assertThat(table.jdbc()
                        .queryForObject(
                                "SELECT run_fired_at FROM scan_task WHERE task = ?", LocalDateTime.class, task.name()))
                .isEqualTo(LocalDateTime.ofInstant(T0, ZoneOffset.UTC));
    }

    /** The pauses of several tasks read at once: those set paused, not those resumed nor those never set. */
    @Test
    void pausesOfSeveralTasksAreReadInOneCall() {
        TaskDefinition resumed = TaskDefinition.builder("resumed")
                .table("tb_order")
                .idColumn("order_id")
                .build();
        TaskDefinition never = TaskDefinition.builder("never")
                .table("tb_order")
                .idColumn("order_id")
                .build();
        store.control().pauseEverywhere(task, true, "node-a", T0);
        store.control().pauseEverywhere(resumed, true, "node-a", T0);
        store.control().pauseEverywhere(resumed, false, "node-b", T0.plusSeconds(1));

        assertThat(store.control().pausedEverywhere(List.of(task, resumed, never)))
                .containsExactly(task.name());
        assertThat(store.control().pausedEverywhere(List.of(never))).isEmpty();
        assertThat(store.control().pausedEverywhere(List.of())).isEmpty();
    }

    /** A task that ran before its schedule was set keeps its run, and a pause set before keeps its row's pause. */
    @Test
    void firstSightKeepsTheRunAndThePauseThereAre() {
        store.control().pauseEverywhere(task, true, "node-a", T0);
        runs.firstSeen(task, "node-a", T0, null);
        assertThat(store.control().pausedEverywhere(task)).isTrue();
        assertThat(runs.current(task).id()).isZero();

        TaskDefinition other = TaskDefinition.builder("other")
                .table("tb_order")
                .idColumn("order_id")
                .run(RunMode.UNTIL_EMPTY)
                .build();
        runs.startFirst(other, "node-a", T0, null);
        runs.finish(other, 1, new RunCounts(3, 0, 0), "node-a", T0.plusSeconds(1));
        assertThat(runs.firstSeen(other, "node-b", T0.plusSeconds(2), null).kind())
                .isEqualTo(Firing.Kind.SEEN);
        assertThat(runs.current(other).id()).isEqualTo(1);
        assertThat(runs.current(other).counts()).isEqualTo(new RunCounts(3, 0, 0));
    }

    /**
     * A firing starts the next run once: a second node handling the same firing finds the first one's
     * record; a firing while the run runs is recorded skipped and starts nothing; once the run is done the
     * next firing starts the next run.
     */
    @Test
    void aFiringStartsTheNextRunOnceAndIsSkippedWhileTheRunRuns() {
        runs.firstSeen(task, "node-a", T0, null);
        Instant first = T0.plusSeconds(60);
        Firing started = runs.fire(task, first, "node-a", first.plusMillis(300), null);
        assertThat(started).isEqualTo(new Firing(first.plusMillis(300), "node-a", Firing.Kind.STARTED));
        assertThat(runs.fire(task, first, "node-b", first.plusMillis(400), null))
                .as("another node handling the same firing finds it handled")
                .isEqualTo(started);
        TaskRun one = runs.current(task);
        assertThat(one.id()).isEqualTo(1);
        assertThat(one.state()).isEqualTo(TaskRun.State.RUNNING);
        assertThat(one.startedBy()).isEqualTo("node-a");
        assertThat(one.startedAt()).isEqualTo(first.plusMillis(300));

        Instant second = T0.plusSeconds(120);
        Firing skipped = runs.fire(task, second, "node-b", second.plusMillis(100), null);
        assertThat(skipped).isEqualTo(new Firing(second.plusMillis(100), "node-b", Firing.Kind.SKIPPED));
        assertThat(runs.current(task)).isEqualTo(one);
        assertThat(runs.fire(task, second, "node-a", second.plusMillis(200), null))
                .isEqualTo(skipped);

        assertThat(runs.finish(task, 1, new RunCounts(40, 0, 0), "node-a", second.plusSeconds(10)))
                .isTrue();
        assertThat(runs.fire(task, second, "node-a", second.plusSeconds(11), null))
                .as("a skipped firing stays skipped when the run ends after it")
                .isEqualTo(skipped);
        assertThat(runs.current(task).state()).isEqualTo(TaskRun.State.DONE);
        Instant third = T0.plusSeconds(180);
        assertThat(runs.fire(task, third, "node-b", third, null).kind()).isEqualTo(Firing.Kind.STARTED);
        TaskRun two = runs.current(task);
        assertThat(two.id()).isEqualTo(2);
        assertThat(two.counts()).isEqualTo(RunCounts.NONE);
        assertThat(two.endedAt()).isNull();
    }

    /** Eight nodes handing on one firing at once: one starts the run, the others find its record. */
    @Test
    void nodesFiringAtOnceStartOneRun() throws Exception {
        runs.firstSeen(task, "node-a", T0, null);
        Instant firing = T0.plusSeconds(60);
        Instant at = firing.plusMillis(7);
        List<Firing> fired = atOnce(node -> runs.fire(task, firing, node, at, null));
        assertThat(fired)
                .as("every node gets the one record of the node that started the run")
                .allSatisfy(f -> assertThat(f).isEqualTo(fired.get(0)));
        assertThat(fired.get(0).kind()).isEqualTo(Firing.Kind.STARTED);
        assertThat(runs.current(task).id()).isEqualTo(1);
    }

    /** Before its first sight a task has no record to fire on: a firing changes nothing. */
    @Test
    void aFiringWithoutARecordIsRefused() {
        runs.startFirst(task, "node-a", T0, null);
        runs.finish(task, 1, RunCounts.NONE, "node-a", T0);
        assertThatThrownBy(() -> runs.fire(task, T0.plusSeconds(60), "node-a", T0.plusSeconds(61), null))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has no firing record");
        assertThat(runs.current(task).id()).isEqualTo(1);
    }

    /** A range task's run 0 covers no id; a firing starts a run over the ids it is given. */
    @Test
    void aRangeTasksFiringStartsARunOverItsIds() {
        TaskDefinition users = TaskDefinition.builder("users")
                .table("tb_order")
                .idColumn("order_id")
                .build();
        RunRange none = new RunRange(1, 0, 1_000, "jdbc");
        runs.firstSeen(users, "node-a", T0, none);
        assertThat(runs.current(users).range()).isEqualTo(none);
        RunRange ids = new RunRange(13, 154, 1_000, "jdbc");
        runs.fire(users, T0.plusSeconds(60), "node-b", T0.plusSeconds(60), ids);
        TaskRun one = runs.current(users);
        assertThat(one.id()).isEqualTo(1);
        assertThat(one.range()).isEqualTo(ids);
        assertThat(one.state()).isEqualTo(TaskRun.State.RUNNING);
    }

    /** What eight nodes, named node-0 to node-7, answer when released together. */
    private static <T> List<T> atOnce(Function<String, T> act) throws Exception {
        int nodes = 8;
        ExecutorService pool = Executors.newFixedThreadPool(nodes);
        try {
            CyclicBarrier together = new CyclicBarrier(nodes);
            List<Future<T>> acted = new ArrayList<>();
            for (int i = 0; i < nodes; i++) {
                String node = "node-" + i;
                acted.add(pool.submit(() -> {
                    together.await();
                    return act.apply(node);
                }));
            }
            List<T> answers = new ArrayList<>();
            for (Future<T> answer : acted) {
                answers.add(answer.get(30, TimeUnit.SECONDS));
            }
            return answers;
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theFirstRunStartsOnTheRowOfAPauseAndThePauseStays() {
        store.control().pauseEverywhere(task, true, "node-a", T0);
        assertThat(runs.current(task)).isNull();
        assertThat(runs.startFirst(task, "node-b", T0, null).id()).isEqualTo(1);
        assertThat(store.control().pausedEverywhere(task)).isTrue();
        assertThat(runs.start(task, 1, "node-b", T0, null).id()).isEqualTo(2);
        assertThat(store.control().pausedEverywhere(task)).isTrue();
    }

    @Test
    void writeBacksCountForTheirRunOnlyUnderTheFence() {
        long epoch = store.fence(task, 1, "node-a");
        assertThat(store.writeBack(
                        task,
                        new WriteBack(
                                1,
                                epoch,
                                T0,
                                List.of(1L, 5L),
                                List.of(new WriteBack.Failure(9, 1, "failed")),
                                List.of(new WriteBack.Failure(13, 3, "dead")),
                                1)))
                .isTrue();
        long other = store.fence(task, 2, "node-b");
        store.writeBack(task, new WriteBack(2, other, T0, List.of(2L), List.of(), List.of(), 1));
        assertThat(runs.counted(task, 1)).isEqualTo(new RunCounts(3, 1, 1));
        assertThat(table.count("status = 1")).isEqualTo(3);

        // a stale owner writes nothing and counts nothing
        long newer = store.fence(task, 1, "node-b");
        assertThat(store.writeBack(task, new WriteBack(1, epoch, T0, List.of(17L), List.of(), List.of(), 1)))
                .isFalse();
        assertThat(runs.counted(task, 1)).isEqualTo(new RunCounts(3, 1, 1));
        assertThat(table.count("order_id = 17 AND status = 0")).isEqualTo(1);

        // the next run counts from zero; a forever task's write-back counts for none
        store.writeBack(task, new WriteBack(1, newer, T0, List.of(17L), List.of(), List.of(), 2));
        assertThat(runs.counted(task, 2)).isEqualTo(new RunCounts(1, 0, 0));
        store.writeBack(task, new WriteBack(1, newer, T0, List.of(21L), List.of(), List.of()));
        assertThat(runs.counted(task, 2)).isEqualTo(new RunCounts(1, 0, 0));
        assertThat(runs.counted(task, 3)).isEqualTo(RunCounts.NONE);
    }

    @Test
    void anyLeftSeesPendingRowsUntilEveryOneIsDoneOrDead() {
        assertThat(store.control().anyLeft(task)).isTrue();
        table.jdbc().update("UPDATE tb_order SET status = 1 WHERE order_id <> 7");
        assertThat(store.control().anyLeft(task)).isTrue();
        table.jdbc().update("UPDATE tb_order SET retry_count = 3 WHERE order_id = 7");
        assertThat(store.control().anyLeft(task))
                .as("a failed row waiting in its retry tier")
                .isTrue();
        table.jdbc().update("UPDATE tb_order SET status = 2 WHERE order_id = 7");
        assertThat(store.control().anyLeft(task)).isFalse();
    }

    @Test
    void anyLeftLeavesOutRowsNotYetDueButKeepsFailedOnes() {
        table.withDueAt(SHARDS);
        TaskDefinition delayed = TaskDefinition.builder("delayed")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS)
                .dueAtColumn("due_at")
                .run(RunMode.UNTIL_EMPTY)
                .build();
        store.inspect(delayed);
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        table.jdbc().update("UPDATE tb_order SET status = 1 WHERE order_id > 3");
        // 1: due in an hour; 2: no due time; 3: due an hour ago
        setDue(now.plus(Duration.ofHours(1)), 1);
        setDue(now.minus(Duration.ofHours(1)), 3);
        assertThat(store.control().anyLeft(delayed)).isTrue();
        table.jdbc().update("UPDATE tb_order SET status = 1 WHERE order_id = 3");
        assertThat(store.control().anyLeft(delayed))
                .as("a fresh row due later and one without a due time wait for a later run")
                .isFalse();
        table.jdbc().update("UPDATE tb_order SET retry_count = 1 WHERE order_id = 1");
        assertThat(store.control().anyLeft(delayed))
                .as("a row that failed keeps the run going")
                .isTrue();
    }

    void setDue(Instant dueAt, long... ids) {
        for (long id : ids) {
            table.jdbc().update("UPDATE tb_order SET due_at = ? WHERE order_id = ?", Timestamp.from(dueAt), id);
        }
    }
}
