package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.CuttableCoordinator;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Several engines on one PostgreSQL database, coordinated through its lease table. */
@ServerTests
class MultiNodeTests {

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final CapturedLog leaseLog = new CapturedLog("io.shardscan.core.LeaseKeeper");

    final DataSource dataSource = TestServers.postgresDatabase("multi_node");
    final OrderTable table = new OrderTable(dataSource).recreate(64, true).coordinationTables();
    final TaskDefinition task = TaskDefinition.builder("order-sms")
            .table("tb_order")
            .idColumn("order_id")
            .shardKeyColumn("user_id")
            .build();

    final TaskHandler.PerRow effect = (row, ctx) -> table.recordEffect(row, ctx, 0);

    @Test
    void threeEnginesProcessTenThousandRowsExactlyOnce() {
        table.insert(10_000, 3_000, Instant.now().minusSeconds(5));
        for (String node : List.of("node-a", "node-b", "node-c")) {
            engines.start(node, dataSource, task, effect);
        }
        await().atMost(TestTime.scaled(Duration.ofSeconds(90))).until(() -> table.count("status = 1") == 10_000);
        assertThat(table.effects()).isEqualTo(10_000);
        assertThat(table.duplicateEffects()).isZero();
        assertThat(table.jdbc().queryForObject("SELECT COUNT(DISTINCT node) FROM effect", Integer.class))
                .isGreaterThan(1);
    }

    /** The node that gives shards away says so, and both count only the shards they keep. */
    @Test
    void aRebalanceIsLoggedOnBothSidesWithTheSharesEachKeeps() {
        ScanEngine a = engines.start("node-a", dataSource, task, effect);
        await().until(() -> a.task("order-sms").ownedShards().size() == 64);
        ScanEngine b = engines.start("node-b", dataSource, task, effect);
        await().until(() -> a.task("order-sms").ownedShards().size() == 32
                && b.task("order-sms").ownedShards().size() == 32);
        await().untilAsserted(() -> assertThat(leaseLog.messages())
                .anyMatch(
                        m -> m.startsWith("Task order-sms: handing shards [") && m.endsWith("this node keeps 32 of 64"))
                .anyMatch(
                        m -> m.startsWith("Task order-sms: took shards [") && m.endsWith("this node holds 32 of 64")));
    }

    @Test
    void threeNodesSettleOn21And21And22Shards() {
        List<ScanEngine> nodes = Stream.of("node-a", "node-b", "node-c")
                .map(node -> engines.start(
                        node,
                        dataSource,
                        task,
                        effect,
                        ScanClock.system(),
                        ScanListener.NONE,
                        Duration.ofSeconds(6),
                        Duration.ofSeconds(2)))
                .toList();
        // a lease the coordinator shows is the node's to use once the database issued its fence epoch
        await().untilAsserted(() -> {
            assertThat(owners().values()).containsExactlyInAnyOrder(21L, 21L, 22L);
            assertThat(nodes.stream()
                            .mapToInt(e -> e.task("order-sms").ownedShards().size())
                            .sum())
                    .isEqualTo(64);
        });
    }

    @Test
    void aNodeThatStopsRenewingLosesItsShardsWithinAboutOneTtl() {
        Duration ttl = Duration.ofSeconds(6);
        Duration renew = Duration.ofSeconds(2);
        CuttableCoordinator cut = new CuttableCoordinator(new io.shardscan.jdbc.JdbcShardCoordinator(dataSource));
        // started through the extension, which stops it after the test: an engine left running when an
        // assertion failed here kept handling rows through the next test of the class (452 effects too many)
        ScanEngine a = engines.start(new ScanEngine(
                List.of(new ScanEngine.ScanTask(task, effect)),
                new io.shardscan.jdbc.JdbcTaskStore(dataSource),
                cut,
                new EngineSettings("node-a", ttl, renew, ttl, Duration.ofSeconds(5)),
                ScanClock.system(),
                ScanListener.NONE));
        // when node-b claimed each shard, as node-b's own thread read the clock at the claim
        Map<Integer, Long> claimedAt = new ConcurrentHashMap<>();
        ScanListener claims = new ScanListener() {
            @Override
            public void shardClaimed(String task, int shard, long epoch) {
                claimedAt.put(shard, System.nanoTime());
            }
        };
        engines.start("node-b", dataSource, task, effect, ScanClock.system(), claims, ttl, renew);
        // the lease rows first, then each node's own view: a claim is in the database before the node
        // holds it (a busy machine read 32 leases of node-a in the database and 23 shards in node-a)
        await().untilAsserted(() ->
                assertThat(owners()).containsOnlyKeys("node-a", "node-b").containsValues(32L));
        await().until(() -> a.task("order-sms").ownedShards().size() == 32);
        Set<Integer> shardsOfA = Set.copyOf(a.task("order-sms").ownedShards().keySet());
        assertThat(shardsOfA).hasSize(32);
        // node-a is cut off from the coordinator: it can neither renew nor release, as if it had died.
        long crashedAt = System.nanoTime();
        cut.cut();
        await().untilAsserted(
                        () -> assertThat(owners()).containsOnlyKeys("node-b").containsValue(64L));
        // node-b tells of a claim once it fenced it, after its lease row shows: a loaded machine read 64
        // leases of node-b before the last claim was told (a NullPointerException below)
        await().until(() -> claimedAt.keySet().containsAll(shardsOfA));
        // measured at node-b's claims, not when this thread saw them: a slow poll here does not count
        Duration failover = Duration.ofNanos(shardsOfA.stream()
                        .mapToLong(shard -> claimedAt.get(shard))
                        .max()
                        .orElseThrow()
                - crashedAt);
        assertThat(failover).isLessThanOrEqualTo(ttl.multipliedBy(3).dividedBy(2));
        assertThat(a.task("order-sms").ownedShards()).isEmpty();
        a.stop();
    }

    /** A bigger node (scan.node-weight: 3) takes three times the shards of one of weight 1 (seed 003). */
    @Test
    void aNodeOfWeightThreeTakesThreeTimesTheShardsOfANodeOfWeightOne() {
        Duration ttl = Duration.ofSeconds(6);
        Duration renew = Duration.ofSeconds(2);
        for (var node : Map.of("node-big", 3, "node-small", 1).entrySet()) {
            engines.start(new ScanEngine(
                    List.of(new ScanEngine.ScanTask(task, effect)),
                    new io.shardscan.jdbc.JdbcTaskStore(dataSource),
                    new io.shardscan.jdbc.JdbcShardCoordinator(dataSource),
                    new EngineSettings(
                            node.getKey(),
                            ttl,
                            renew,
                            ttl,
                            Duration.ofSeconds(5),
                            null,
                            WorkerThreads.PLATFORM,
                            io.shardscan.core.task.EndpointDownClassifier.DEFAULT,
                            node.getValue()),
                    ScanClock.system(),
                    ScanListener.NONE));
        }
        await().untilAsserted(
                        () -> assertThat(owners()).containsOnly(entry("node-big", 48L), entry("node-small", 16L)));
    }

    private Map<String, Long> owners() {
        Collection<LeaseInfo> leases = new io.shardscan.jdbc.JdbcShardCoordinator(dataSource).leases("order-sms");
        return leases.stream()
                .filter(l -> l.owner() != null)
                .collect(Collectors.groupingBy(LeaseInfo::owner, Collectors.counting()));
    }
}
