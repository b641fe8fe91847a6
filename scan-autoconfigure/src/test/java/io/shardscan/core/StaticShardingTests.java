package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.time.Instant;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Static sharding (seed 001): node i of n owns the shards s with s mod n == i, without any coordinator. */
class StaticShardingTests {

    @RegisterExtension
    final Engines engines = new Engines();

    final DataSource dataSource = TestServers.h2("static_sharding");
    final OrderTable table = new OrderTable(dataSource).recreate(8, true).coordinationTables();
    final TaskDefinition task = TaskDefinition.builder("orders")
            .table("tb_order")
            .idColumn("order_id")
            .shardKeyColumn("user_id")
            .shards(8)
            .build();

    @Test
    void twoStaticNodesSplitTheShardsByIndexAndProcessEveryRowOnce() {
        table.insert(1000, 53, Instant.now());
        ScanEngine[] nodes = new ScanEngine[2];
        for (int i = 0; i < 2; i++) {
            String node = "static-" + i;
            nodes[i] = engines.start(
                    node,
                    dataSource,
                    new StaticShardCoordinator(i, 2, ScanClock.system()),
                    new ScanEngine.ScanTask(task, (TaskHandler.PerRow) (row, ctx) -> table.recordEffect(row, ctx, 0)),
                    ScanClock.system(),
                    ScanListener.NONE,
                    Engines.FAST_TTL,
                    Engines.FAST_RENEW);
        }
        await().until(() -> table.count("status = 1") == 1000);
        assertThat(table.effects()).isEqualTo(1000);
        assertThat(table.duplicateEffects()).isZero();
        assertThat(nodes[0].task("orders").ownedShards().keySet()).containsExactly(0, 2, 4, 6);
        assertThat(nodes[1].task("orders").ownedShards().keySet()).containsExactly(1, 3, 5, 7);
        assertThat(table.jdbc().queryForObject("SELECT COUNT(*) FROM scan_lease", Integer.class))
                .as("no coordinator traffic")
                .isZero();
        IntStream.range(0, 2).forEach(i -> assertThat(table.jdbc()
                        .queryForObject(
                                "SELECT COUNT(*) FROM effect WHERE node = ? AND MOD(user_id, 2) <> ?",
                                Integer.class,
                                "static-" + i,
                                i))
                .isZero());
    }
}
