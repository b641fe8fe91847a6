package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.spi.RunCounts;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.spi.TaskRun;
import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.LeaseTicks;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code run: until-empty} on two nodes of one database: the run ends DONE once, recorded by one
 * node with every node's counts, when no row of any shard is left (failed rows in a retry tier keep
 * it going until they are dead); rows inserted afterwards wait for a new run, through a node
 * restart; {@link ScanTasks#start} starts that run on every node. One subclass per database and
 * coordinator.
 */
abstract class UntilEmptyContractTests {

    static final int SHARDS = 16;

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final CapturedLog log = new CapturedLog(RunKeeper.class.getName());

    /** Runs that ended, as each node's listener heard it: exactly one entry per run. */
    final List<TaskRun> ended = new CopyOnWriteArrayList<>();

    final ScanListener listener = new ScanListener() {
        @Override
        public void runEnded(String task, TaskRun run) {
            ended.add(run);
        }
    };

    DataSource dataSource;
    OrderTable table;
    TaskDefinition task;

    abstract DataSource dataSource();

    /** A coordinator of its own, as another node would have. */
    ShardCoordinator coordinator() {
        return new JdbcShardCoordinator(dataSource);
    }

    void setUp(String name) {
        dataSource = dataSource();
        table = new OrderTable(dataSource).recreate(SHARDS, true).coordinationTables();
        task = TaskDefinition.builder(name)
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS)
                .tiers(List.of(Tier.of("0", Duration.ofMillis(200)), Tier.of("1-2", Duration.ofMillis(200))))
                .run(RunMode.UNTIL_EMPTY)
                .build();
    }

    /** Every 100th order fails every time: 2 failed attempts, then dead after the last tier. */
    final TaskHandler handler = (TaskHandler.PerRow) (row, ctx) -> {
        if (row.id() % 100 == 0) {
            throw new IllegalStateException("refused by the test");
        }
        return table.recordEffect(row, ctx, 0);
    };

    ScanEngine node(String name) {
        return engines.start(
                name,
                dataSource,
                coordinator(),
                new ScanEngine.ScanTask(task, handler),
                ScanClock.system(),
                listener,
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
    }

    @Test
    void twoNodesEndTheRunOnceWithEveryNodesCounts() {
        setUp("until-empty-" + getClass().getSimpleName().toLowerCase().replace("untilemptytests", ""));
        table.insert(3000, 300, Instant.now());
        ScanEngine a = node("node-a");
        ScanEngine b = node("node-b");

        await().atMost(TestTime.scaled(Duration.ofSeconds(180)))
                .until(() -> a.task(task.name()).state() == TaskView.State.DONE
                        && b.task(task.name()).state() == TaskView.State.DONE);
        // both nodes saw it end; one recorded it, once, whatever the other's next ticks do
        LeaseTicks.awaitNext(3, a.task(task.name()), b.task(task.name()));
        assertThat(ended).hasSize(1);
        TaskRun run = ended.get(0);
        assertThat(run.id()).isEqualTo(1);
        assertThat(run.counts()).isEqualTo(new RunCounts(2970, 60, 30));
        assertThat(table.count("status = 1")).isEqualTo(2970);
        assertThat(table.count("status = 2")).isEqualTo(30);
        assertThat(table.effects()).isEqualTo(2970);
        Map<String, Object> row = table.jdbc()
                .queryForMap(
                        "SELECT run_id, run_state, run_processed, run_failed, run_dead, run_ended_by"
                                + " FROM scan_task WHERE task = ?",
                        task.name());
        assertThat(row).containsEntry("run_state", "DONE").containsEntry("run_ended_by", run.endedBy());
        assertThat(((Number) row.get("run_id")).longValue()).isEqualTo(1);
        assertThat(((Number) row.get("run_processed")).longValue()).isEqualTo(2970);
        assertThat(((Number) row.get("run_dead")).longValue()).isEqualTo(30);
        for (ScanEngine node : List.of(a, b)) {
            TaskRun seen = node.task(task.name()).run();
            assertThat(seen).isNotNull();
            assertThat(seen.state()).isEqualTo(TaskRun.State.DONE);
            assertThat(seen.counts()).isEqualTo(run.counts());
        }
        assertThat(log.messages())
                .filteredOn(m -> m.startsWith("Task " + task.name() + " done: 2970 processed, 30 dead in "))
                .singleElement()
                .asString()
                .contains("start it again with ScanTasks.start(\"" + task.name() + "\")");
    }

    @Test
    void rowsInsertedAfterTheEndWaitThroughARestartForANewRun() {
        setUp("until-empty-again-" + getClass().getSimpleName().toLowerCase().replace("untilemptytests", ""));
        table.insert(300, 30, Instant.now());
        ScanEngine a = node("node-a");
        ScanEngine b = node("node-b");
        await().atMost(TestTime.scaled(Duration.ofSeconds(120)))
                .until(() -> a.task(task.name()).state() == TaskView.State.DONE
                        && b.task(task.name()).state() == TaskView.State.DONE);

        // new rows wait: for the nodes, and for a node that restarts (a restart does not start a run)
        table.insert(1001, 200, 30, Instant.now());
        a.stop();
        ScanEngine restarted = node("node-a");
        await().until(() -> restarted.task(task.name()).run() != null);
        // the nodes tick on, each tick reading the run and waking their dispatchers: a row that slipped
        // through would run by then
        LeaseTicks.awaitNext(3, restarted.task(task.name()), b.task(task.name()));
        assertThat(table.count("order_id > 1000 AND status = 0")).isEqualTo(200);
        assertThat(restarted.task(task.name()).state()).isEqualTo(TaskView.State.DONE);
        assertThat(restarted.task(task.name()).run().id()).isEqualTo(1);
        assertThat(ended).hasSize(1);

        // a new run, started on one node, runs on both and ends again
        TaskRun second = new ScanTasks(b).start(task.name());
        assertThat(second.id()).isEqualTo(2);
        assertThat(second.state()).isEqualTo(TaskRun.State.RUNNING);
        await().atMost(TestTime.scaled(Duration.ofSeconds(120))).until(() -> ended.size() == 2);
        await().until(() -> restarted.task(task.name()).state() == TaskView.State.DONE
                && b.task(task.name()).state() == TaskView.State.DONE);
        assertThat(ended.get(1).id()).isEqualTo(2);
        assertThat(ended.get(1).counts()).isEqualTo(new RunCounts(198, 4, 2));
        assertThat(table.count("status = 0")).isZero();
        assertThat(restarted.task(task.name()).run().id()).isEqualTo(2);
    }
}
