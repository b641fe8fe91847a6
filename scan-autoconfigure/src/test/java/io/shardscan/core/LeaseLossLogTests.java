package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.CuttableCoordinator;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.util.logging.Level;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A node cut off from its coordinator loses every shard at once: one WARN says so for the incident,
 * the other shards' losses go to DEBUG, and every loss is still counted.
 */
class LeaseLossLogTests {

    static final int SHARDS = 16;

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final CapturedLog leaseLog = new CapturedLog(LeaseKeeper.class.getName());

    final DataSource dataSource = TestServers.h2("lease_loss_log");

    @Test
    void aNodeThatLosesEveryShardAtOnceLogsOneWarning() {
        new OrderTable(dataSource).recreate(SHARDS, true).coordinationTables();
        CuttableCoordinator coordinator = new CuttableCoordinator(new JdbcShardCoordinator(dataSource));
        TaskDefinition task = TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS)
                .build();
        ScanEngine engine = engines.start(
                "node-a",
                dataSource,
                coordinator,
                new ScanEngine.ScanTask(task, (TaskHandler.PerRow) (row, ctx) -> Outcome.done()),
                ScanClock.system(),
                ScanListener.NONE,
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
        await().until(() -> engine.task("orders").ownedShards().size() == SHARDS);

        coordinator.cut();
        await().until(() -> engine.task("orders").stats().leasesLost() == SHARDS);

        assertThat(leaseLog.warnings())
                .filteredOn(line -> line.contains("fenced off"))
                .singleElement()
                .asString()
                .contains("Task orders: shard ", "fenced off, its lease deadline passed without a renewal");
        assertThat(leaseLog.messages(Level.FINE))
                .filteredOn(line -> line.contains("fenced off"))
                .hasSize(SHARDS - 1);
    }
}
