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
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * A rolling change of {@code shards} on one table and one coordinator. From 8 to 12 (not a multiple):
 * the node with the new count claims nothing while a node with the old one holds leases, and says so
 * in its health, a gauge and one WARN line; once the old node stops, it takes over. From 8 to 16 (a
 * split): nodes restarted one by one with the new count take their share at once, rows flowing. Every
 * row runs exactly once, and each key's rows in id order. One subclass per coordinator.
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

        ScanEngine changed = start("node-b", 12);
        MeterRegistry registry = new SimpleMeterRegistry();
        new ScanMetrics(() -> changed, task -> null).bindTo(registry);
        ScanHealthIndicator health = new ScanHealthIndicator(changed);
        await().untilAsserted(() -> assertThat(changed.task(name).shardCountConflict())
                .isEqualTo(new ShardCountConflict(12, 8, List.of("node-a"))));
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
                        "scan.tasks." + name + ".shards is 12 on this node but 8 on members [node-a]",
                        "finish the rolling change or set the same value everywhere");
        assertThat(coreLog.warnings())
                .filteredOn(m -> m.contains("shards is 12 on this node but 8"))
                .hasSize(1);
        assertThat(new ScanEndpoint(changed, new ScanBacklogs(changed, Duration.ofMinutes(1)), false)
                        .task(name)
                        .shardCountConflict())
                .contains("shards is 12 on this node but 8 on members [node-a]");
        // the old node's health counts its own 8 shards only, never less than none unowned
        assertThat(details(new ScanHealthIndicator(old).health(true)))
                .containsEntry("unownedShards", 0L)
                .doesNotContainKey("shardCountConflict");

        old.stop();
        table.insert(20_001, 2_000, 500, Instant.now().minusSeconds(5));
        await().atMost(TestTime.scaled(Duration.ofSeconds(60))).until(() -> table.count("status = 1") == 6_000);
        assertThat(changed.task(name).shardCountConflict()).isNull();
        assertThat(changed.task(name).ownedShards()).hasSize(12);
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
        ScanEngine changed = start("node-b", 12, coordinator());
        await().untilAsserted(() ->
                assertThat(changed.task(name).shardCountConflict()).isNotNull());

        // node-a can neither renew, heartbeat nor release, as if it had been killed
        cut.cut();
        await().untilAsserted(() -> assertThat(old.task(name).ownedShards()).isEmpty());
        table.insert(10_001, 1_000, 300, Instant.now().minusSeconds(5));
        await().atMost(TestTime.scaled(Duration.ofSeconds(60))).until(() -> table.count("status = 1") == 2_000);
        assertThat(changed.task(name).shardCountConflict()).isNull();
        assertThat(changed.task(name).ownedShards()).hasSize(12);
        assertThat(effectsOf("node-b")).isEqualTo(1_000);
        assertThat(table.duplicateEffects()).isZero();
    }

    /**
     * Doubling {@code shards} by restarting the nodes one by one, rows inserted all along: a restarted
     * node of 16 takes its share of the 8 parents at once, as their children, beside the node of 8;
     * once both run 16 they share 16 shards. No row runs twice, none is left, each key's rows run in
     * id order, and no node says it claims nothing.
     */
    @Test
    void doublingTheShardCountNodeByNodeMovesWorkParentByParentWithRowsFlowing() throws Exception {
        AtomicLong seq = new AtomicLong();
        TaskHandler.PerRow inOrder = (row, ctx) -> table.recordEffect(row, ctx, seq.incrementAndGet());
        table.insert(1, 1_000, 40, Instant.now().minusSeconds(5));
        ScanEngine a = start("node-a", 8, coordinator(), inOrder);
        ScanEngine b = start("node-b", 8, coordinator(), inOrder);
        await().untilAsserted(() -> assertThat(List.of(
                        a.task(name).ownedShards().size(),
                        b.task(name).ownedShards().size()))
                .containsExactly(4, 4));

        AtomicLong next = new AtomicLong(1_001);
        ScheduledExecutorService inserts = Executors.newSingleThreadScheduledExecutor();
        try {
            inserts.scheduleWithFixedDelay(
                    () -> table.insert(next.getAndAdd(50), 50, 40, Instant.now().minusSeconds(5)),
                    0,
                    100,
                    TimeUnit.MILLISECONDS);
            a.stop();
            ScanEngine a16 = start("node-a", 16, coordinator(), inOrder);
            await().atMost(TestTime.scaled(Duration.ofSeconds(30))).untilAsserted(() -> {
                assertThat(a16.task(name).shardCountConflict()).isNull();
                assertThat(a16.task(name).ownedShards())
                        .as("four parents of 8, each as its two children of 16")
                        .hasSize(8);
                assertThat(b.task(name).ownedShards()).hasSize(4);
                assertThat(details(new ScanHealthIndicator(a16).health(true))).containsEntry("unownedShards", 0L);
                assertThat(details(new ScanHealthIndicator(b).health(true))).containsEntry("unownedShards", 0L);
                // node-b keeps its 4 parents throughout: only its next tick shows the split in its view
                assertThat(new ScanEndpoint(b, new ScanBacklogs(b, Duration.ofMinutes(1)), false)
                                .task(name)
                                .shardSplit())
                        .startsWith("nodes of 8 and of 16 shards run at once");
            });
            assertThat(coreLog.messages())
                    .anyMatch(m -> m.contains("nodes of 8 and of 16 shards run at once: shards are assigned in 8"));
            long split = seq.get();
            await().atMost(TestTime.scaled(Duration.ofSeconds(30)))
                    .until(() -> effectsOf("node-a", split) > 100 && effectsOf("node-b", split) > 100);
            assertThat(b.task(name).ownedShards()).as("node-b still runs 8").hasSize(4);

            b.stop();
            ScanEngine b16 = start("node-b", 16, coordinator(), inOrder);
            await().atMost(TestTime.scaled(Duration.ofSeconds(30))).untilAsserted(() -> assertThat(List.of(
                            a16.task(name).ownedShards().size(),
                            b16.task(name).ownedShards().size()))
                    .containsExactly(8, 8));
            await().untilAsserted(
                            () -> assertThat(new ScanEndpoint(a16, new ScanBacklogs(a16, Duration.ofMinutes(1)), false)
                                            .task(name)
                                            .shardSplit())
                                    .isNull());
        } finally {
            inserts.shutdown();
            assertThat(inserts.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
        long inserted = next.get() - 1;
        await().atMost(TestTime.scaled(Duration.ofSeconds(60))).until(() -> table.count("status = 1") == inserted);
        assertThat(table.effects()).isEqualTo(inserted);
        assertThat(table.duplicateEffects()).isZero();
        assertThat(table.jdbc()
                        .queryForObject(
                                "SELECT COUNT(*) FROM (SELECT order_id, LAG(order_id) OVER (PARTITION BY user_id ORDER BY"
                                        + " seq) AS previous FROM effect) e WHERE e.previous > e.order_id",
                                Integer.class))
                .as("rows of one key that ran after a later row of it")
                .isZero();
        assertThat(coreLog.warnings()).noneMatch(m -> m.contains("claims no shard"));
    }

    ScanEngine start(String node, int shards) {
        return start(node, shards, coordinator());
    }

    private ScanEngine start(String node, int shards, ShardCoordinator coordinator) {
        return start(node, shards, coordinator, effect);
    }

    private ScanEngine start(String node, int shards, ShardCoordinator coordinator, TaskHandler handler) {
        return engines.start(
                node,
                dataSource,
                coordinator,
                new ScanEngine.ScanTask(task(shards), handler),
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
        return effectsOf(node, -1);
    }

    private int effectsOf(String node, long afterSeq) {
        return table.jdbc()
                .queryForObject(
                        "SELECT COUNT(*) FROM effect WHERE node = ? AND seq > ?", Integer.class, node, afterSeq);
    }

    @SuppressWarnings("unchecked")
    Map<String, Object> details(Health health) {
        return (Map<String, Object>) ((Map<String, Object>) health.getDetails().get("tasks")).get(name);
    }
}
