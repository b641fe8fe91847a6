package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.LeaseTicks;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A pause everywhere is the task's, not a node's: it reaches the other nodes at their next lease
 * tick and holds for a node that restarts or joins, until a resume from any node; a node's own
 * pause stays its own. On PostgreSQL.
 */
@ServerTests
class PauseTests {

    @RegisterExtension
    final Engines engines = new Engines();

    final DataSource dataSource = TestServers.postgresDatabase("pause");
    final OrderTable table = new OrderTable(dataSource).recreate(8, true).coordinationTables();
    final TaskDefinition task = TaskDefinition.builder("orders")
            .table("tb_order")
            .idColumn("order_id")
            .shardKeyColumn("user_id")
            .shards(8)
            .tiers(java.util.List.of(Tier.of("0", Duration.ofMillis(200))))
            .build();
    final TaskHandler.PerRow handler = (row, ctx) -> table.recordEffect(row, ctx, 0);

    @Test
    void aPauseEverywhereHoldsForNodesThatRestartOrJoinUntilAResumeFromAnyNode() {
        table.jdbc().update("DELETE FROM scan_task");
        ScanEngine a = engines.start("node-a", dataSource, task, handler);
        a.task("orders").pauseEverywhere();

        // a node that joins, and the first node restarted, find the task paused
        ScanEngine b = engines.start("node-b", dataSource, task, handler);
        a.stop();
        ScanEngine restarted = engines.start("node-a", dataSource, task, handler);
        // only now: a round node-a started before its pause (its first claims race the pause) rightly
        // finishes, and would have run rows inserted meanwhile
        table.insert(500, 50, Instant.now());
        await().until(() -> b.task("orders").ownedShards().size()
                        + restarted.task("orders").ownedShards().size()
                == 8);
        // both nodes hold every shard and tick on, each tick waking their dispatchers: a row the pause let
        // through would run by then (a claimed shard's first round starts at once)
        LeaseTicks.awaitNext(3, b.task("orders"), restarted.task("orders"));
        assertThat(table.effects()).isZero();
        assertThat(b.task("orders").state()).isEqualTo(TaskView.State.PAUSED);
        assertThat(restarted.task("orders").state()).isEqualTo(TaskView.State.PAUSED);
        assertThat(table.jdbc().queryForObject("SELECT changed_by FROM scan_task WHERE task = 'orders'", String.class))
                .isEqualTo("node-a");

        // a node's own pause stays its own: resumed everywhere, b still waits, the restarted node works
        b.task("orders").pause();
        b.task("orders").resumeEverywhere();
        await().until(() -> restarted.task("orders").state() == TaskView.State.RUNNING);
        await().until(() -> table.count("status = 1") == 500 - pendingOn(b));
        assertThat(b.task("orders").state()).isEqualTo(TaskView.State.PAUSED);
        b.task("orders").resume();
        await().until(() -> table.count("status = 1") == 500);
        assertThat(table.duplicateEffects()).isZero();
    }

    /** Rows of the shards {@code node} holds. */
    private int pendingOn(ScanEngine node) {
        return node.task("orders").ownedShards().keySet().stream()
                .mapToInt(shard -> table.count("MOD(user_id, 8) = " + shard))
                .sum();
    }
}
