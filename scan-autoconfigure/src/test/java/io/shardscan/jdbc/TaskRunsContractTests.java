package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

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
