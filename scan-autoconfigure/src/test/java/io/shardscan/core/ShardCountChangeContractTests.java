package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardscan.actuate.ScanBacklogs;
import io.shardscan.actuate.ScanEndpoint;
import io.shardscan.actuate.ScanHealthIndicator;
import io.shardscan.actuate.ScanMetrics;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.spi.ShardCountConflict;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.CuttableCoordinator;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * A rolling change of {@code shards} (8 to 16) on one table and one coordinator: the node with the
 * new count claims nothing while a node with the old one holds leases, and says so in its health, a
 * gauge and one WARN line; once the old node stops, it takes over. Every row runs exactly once. One
 * subclass per coordinator.
 */
abstract class ShardCountChangeContractTests {

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final CapturedLog coreLog = new CapturedLog("io.shardscan.core");

    final DataSource dataSource = TestServers.postgresDatabase("shard_count_change");
    // a task of its own per test: a coordinator outside the database keeps what earlier runs left
    final String name = "store-sync-" + System.nanoTime();
    // no scan index: it would fix one modulus, and the two nodes use two
    final OrderTable table = new OrderTable(dataSource).recreate(8, false).coordinationTables();
    final TaskHandler.PerRow effect = (row, ctx) -> table.recordEffect(row, ctx, 0);

    /** A coordinator of its own, as another node would have. */
    abstract ShardCoordinator coordinator();

    @Test
    void aNodeWithAnotherShardCountIdlesUntilTheOldNodesAreGoneAndNoRowRunsTwice() {
        table.insert(1, 2_000, 500, Instant.now().minusSeconds(5));
        ScanEngine old = start("node-a", 8);
        await().untilAsserted(() -> assertThat(old.task(name).ownedShards()).hasSize(8));

        ScanEngine changed = start("node-b", 16);
        MeterRegistry registry = new SimpleMeterRegistry();
        new ScanMetrics(() -> changed, task -> null).bindTo(registry);
        ScanHealthIndicator health = new ScanHealthIndicator(changed);
        await().untilAsserted(() -> assertThat(changed.task(name).shardCountConflict())
                .isEqualTo(new ShardCountConflict(16, 8, List.of("node-a"))));
        // rows inserted while both run: all of them on the old count's node
        table.insert(10_001, 2_000, 500, Instant.now().minusSeconds(5));
        await().atMost(TestTime.scaled(Duration.ofSeconds(60))).until(() -> table.count("status = 1") == 4_000);
        assertThat(effectsOf("node-b")).isZero();
        assertThat(changed.task(name).ownedShards()).isEmpty();
        assertThat(old.task(name).ownedShards()).hasSize(8);
        assertThat(registry.get("scan.shards.conflict").gauge().value()).isEqualTo(1.0);
        Health down = health.health(true);
        assertThat(down.getStatus()).isEqualTo(Status.DOWN);
        assertThat(String.valueOf(details(down).get("shardCountConflict")))
                .contains(
                        "scan.tasks." + name + ".shards is 16 on this node but 8 on members [node-a]",
                        "finish the rolling change or set the same value everywhere");
        assertThat(coreLog.warnings())
                .filteredOn(m -> m.contains("shards is 16 on this node but 8"))
                .hasSize(1);
        assertThat(new ScanEndpoint(changed, new ScanBacklogs(changed, Duration.ofMinutes(1)), false)
                        .task(name)
                        .shardCountConflict())
                .contains("shards is 16 on this node but 8 on members [node-a]");
        // the old node's health counts its own 8 shards only, never less than none unowned
        assertThat(details(new ScanHealthIndicator(old).health(true)))
                .containsEntry("unownedShards", 0L)
                .doesNotContainKey("shardCountConflict");

        old.stop();
        table.insert(20_001, 2_000, 500, Instant.now().minusSeconds(5));
        await().atMost(TestTime.scaled(Duration.ofSeconds(60))).until(() -> table.count("status = 1") == 6_000);
        assertThat(changed.task(name).shardCountConflict()).isNull();
        assertThat(changed.task(name).ownedShards()).hasSize(16);
        assertThat(registry.get("scan.shards.conflict").gauge().value()).isZero();
        // the leases a tick reads come before its claims: UP from the tick after
        await().untilAsserted(() -> assertThat(health.health(true).getStatus()).isEqualTo(Status.UP));
        assertThat(effectsOf("node-b")).isEqualTo(2_000);
        assertThat(table.effects()).isEqualTo(6_000);
        assertThat(table.duplicateEffects()).isZero();
    }

    @Test
    void whenTheOldNodeDiesTheOtherCountTakesOverOnceItsLeasesAndMembershipLapsed() {
        table.insert(1, 1_000, 300, Instant.now().minusSeconds(5));
        CuttableCoordinator cut = new CuttableCoordinator(coordinator());
        ScanEngine old = start("node-a", 8, cut);
        await().until(() -> table.count("status = 1") == 1_000);
        ScanEngine changed = start("node-b", 16, coordinator());
        await().untilAsserted(() ->
                assertThat(changed.task(name).shardCountConflict()).isNotNull());

        // node-a can neither renew, heartbeat nor release, as if it had been killed
        cut.cut();
        await().untilAsserted(() -> assertThat(old.task(name).ownedShards()).isEmpty());
        table.insert(10_001, 1_000, 300, Instant.now().minusSeconds(5));
        await().atMost(TestTime.scaled(Duration.ofSeconds(60))).until(() -> table.count("status = 1") == 2_000);
        assertThat(changed.task(name).shardCountConflict()).isNull();
        assertThat(changed.task(name).ownedShards()).hasSize(16);
        assertThat(effectsOf("node-b")).isEqualTo(1_000);
        assertThat(table.duplicateEffects()).isZero();
    }

    ScanEngine start(String node, int shards) {
        return start(node, shards, coordinator());
    }

    private ScanEngine start(String node, int shards, ShardCoordinator coordinator) {
        return engines.start(
                node,
                dataSource,
                coordinator,
                new ScanEngine.ScanTask(task(shards), effect),
                ScanClock.system(),
                ScanListener.NONE,
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
    }

    private TaskDefinition task(int shards) {
        return TaskDefinition.builder(name)
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(shards)
                .build();
    }

    private int effectsOf(String node) {
        return table.jdbc().queryForObject("SELECT COUNT(*) FROM effect WHERE node = ?", Integer.class, node);
    }

    @SuppressWarnings("unchecked")
    Map<String, Object> details(Health health) {
        return (Map<String, Object>) ((Map<String, Object>) health.getDetails().get("tasks")).get(name);
    }
}
