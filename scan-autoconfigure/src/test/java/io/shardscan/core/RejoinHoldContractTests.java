package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardscan.actuate.RejoinHoldDescriptor;
import io.shardscan.actuate.ScanBacklogs;
import io.shardscan.actuate.ScanEndpoint;
import io.shardscan.actuate.ScanMetrics;
import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.CuttableCoordinator;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.LeaseTicks;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Damping for a flapping node ({@code scan.rejoin-hold}): node-b drops out of the members (cut off from
 * the coordinator until node-a has taken all its shards over) and comes back, three times. Each time it
 * holds back: the leases stay exactly as node-a holds them (same owner, same epoch, so nothing moved and
 * nothing was unowned), node-b tries no claim, and node-a sees node-b's hold in its heartbeat. The hold is
 * timed by node-b's own clock, which the test moves past it; then the shards of a join move, and only
 * those. Rows inserted throughout run once per fence epoch. One subclass per coordinator.
 */
abstract class RejoinHoldContractTests {

    static final int SHARDS = 16;
    /** Never passes by itself: the test moves node-b's clock past it. */
    static final Duration HOLD = Duration.ofHours(1);

    static final Duration WINDOW = Duration.ofDays(1);
    static final RejoinDamping DAMPING = new RejoinDamping(HOLD, WINDOW);

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final CapturedLog leaseLog = new CapturedLog("io.shardscan.core.LeaseKeeper");

    final DataSource dataSource = TestServers.postgresDatabase("rejoin_hold");
    // a task of its own per test: a coordinator outside the database keeps what earlier runs left
    final String name = "order-sms-" + System.nanoTime();
    final OrderTable table = new OrderTable(dataSource).recreate(SHARDS, true).coordinationTables();
    final TaskHandler.PerRow effect = (row, ctx) -> table.recordEffect(row, ctx, 0);
    /**
     * node-b's clock: the hold is timed by its monotonic reading, which the test moves ahead; its wall
     * time runs with the system's, by which its rows come due.
     */
    final DispatchTests.JumpingClock clockOfB = new DispatchTests.JumpingClock();

    /** A coordinator of its own, as another node would have. */
    abstract ShardCoordinator coordinator();

    @Test
    void aNodeThatDropsOutAndReturnsThreeTimesTakesNoShardBackUntilItsHoldPasses() {
        ShardCoordinator observer = coordinator();
        ScanEngine a = start("node-a", coordinator(), ScanClock.system(), DAMPING);
        CuttableCoordinator linkOfB = new CuttableCoordinator(coordinator());
        ScanEngine b = start("node-b", linkOfB, clockOfB, DAMPING);
        MeterRegistry registry = new SimpleMeterRegistry();
        new ScanMetrics(() -> b, task -> null).bindTo(registry);
        ScanEndpoint endpoint = new ScanEndpoint(b, new ScanBacklogs(b, Duration.ofMinutes(1)), false);
        await().untilAsserted(() ->
                assertThat(ownerCounts(observer)).containsEntry("node-a", 8L).containsEntry("node-b", 8L));
        assertThat(endpoint.task(name).rejoinHold()).isNull();
        int id = 1;
        table.insert(id, 500, 100, Instant.now().minusSeconds(5));
        id += 500;

        for (int rejoin = 1; rejoin <= 3; rejoin++) {
            linkOfB.cut();
            await("node-b dropped out and node-a holds every shard")
                    .atMost(TestTime.scaled(Duration.ofSeconds(20)))
                    .untilAsserted(() -> {
                        assertThat(a.task(name).members())
                                .extracting(m -> m.node())
                                .containsExactly("node-a");
                        assertThat(ownerCounts(observer)).containsOnly(Map.entry("node-a", (long) SHARDS));
                        assertThat(a.task(name).ownedShards()).hasSize(SHARDS);
                        assertThat(b.task(name).ownedShards()).isEmpty();
                    });
            Map<Integer, String> leases = leases(observer);
            int tried = linkOfB.acquireAttempts();
            int effectsOfB = effectsOf("node-b");

            linkOfB.heal();
            int rejoins = rejoin;
            await("node-b holds back after rejoin " + rejoin).untilAsserted(() -> {
                RejoinHoldStatus hold = b.task(name).rejoinHold();
                assertThat(hold).isNotNull();
                assertThat(hold.rejoins()).isEqualTo(rejoins);
            });
            // node-a's ticks after node-b's came back read its hold; node-b's had their chance to claim
            LeaseTicks.awaitNext(3, a.task(name), b.task(name));
            table.insert(id, 200, 50, Instant.now().minusSeconds(5));
            id += 200;
            LeaseTicks.awaitNext(3, a.task(name), b.task(name));

            assertThat(leases(observer))
                    .as("every lease's owner and epoch after node-b's rejoin %d", rejoin)
                    .isEqualTo(leases);
            assertThat(b.task(name).ownedShards()).isEmpty();
            assertThat(linkOfB.acquireAttempts())
                    .as("claims node-b tried while it held back")
                    .isEqualTo(tried);
            assertThat(a.task(name).members())
                    .filteredOn(m -> m.node().equals("node-b"))
                    .singleElement()
                    .satisfies(m -> assertThat(m.counters().holdingBack()).isTrue());
            RejoinHoldStatus hold = b.task(name).rejoinHold();
            Duration expected = HOLD.multipliedBy(1L << (rejoin - 1));
            assertThat(hold.until())
                    .isBetween(
                            clockOfB.now().plus(expected).minusSeconds(60),
                            clockOfB.now().plus(expected));
            assertThat(hold.describe())
                    .startsWith("holding back until " + hold.until() + ", rejoined " + rejoin + " time");
            int inserted = id - 1;
            RejoinHoldDescriptor shown = endpoint.task(name).rejoinHold();
            assertThat(shown.state())
                    .isEqualTo("holding back until " + hold.until() + ", rejoined " + rejoin
                            + (rejoin == 1 ? " time" : " times") + " in " + WINDOW);
            assertThat(shown.rejoins()).isEqualTo(rejoin);
            assertThat(registry.get("scan.shards.holding.back").gauge().value()).isEqualTo(1.0);
            await().until(() -> table.count("status = 1") == inserted);
            assertThat(effectsOf("node-b")).isEqualTo(effectsOfB);
        }
        assertThat(leaseLog.warnings())
                .filteredOn(m -> m.contains("rejoined the members"))
                .hasSize(3)
                .last()
                .asString()
                .contains("3 times within scan.rejoin-window", "it holds back for PT4H");

        Map<Integer, String> beforeTheHoldEnds = leases(observer).entrySet().stream()
                .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, e -> owner(e.getValue())));
        clockOfB.jump(HOLD.multipliedBy(4));
        long endedAt = System.nanoTime();
        await("node-b takes its share once its hold passed")
                .atMost(TestTime.scaled(Engines.FAST_TTL.multipliedBy(3)))
                .untilAsserted(() -> {
                    assertThat(ownerCounts(observer))
                            .containsEntry("node-a", 8L)
                            .containsEntry("node-b", 8L);
                    assertThat(b.task(name).ownedShards()).hasSize(8);
                });
        System.out.printf(
                "RejoinHoldContractTests: node-b held 8 shards %d ms after its hold passed%n",
                (System.nanoTime() - endedAt) / 1_000_000);
        assertThat(b.task(name).rejoinHold()).isNull();
        assertThat(endpoint.task(name).rejoinHold()).isNull();
        assertThat(registry.get("scan.shards.holding.back").gauge().value()).isZero();
        assertThat(leaseLog.messages())
                .contains("Task " + name + ": the rejoin hold ended; this node takes its share of the shards again");
        Map<Integer, String> after = leases(observer);
        long moved = after.keySet().stream()
                .filter(s -> !owner(after.get(s)).equals(beforeTheHoldEnds.get(s)))
                .count();
        assertThat(moved).as("shards moved when the hold passed: a join's").isEqualTo(8);

        table.insert(id, 500, 100, Instant.now().minusSeconds(5));
        int all = id + 499;
        await().atMost(TestTime.scaled(Duration.ofSeconds(30))).until(() -> table.count("status = 1") == all);
        assertThat(effectsOf("node-b")).isPositive();
        assertThat(table.ordersWithoutEffect()).isZero();
        assertThat(table.epochsWrittenByTwoNodes(SHARDS)).isEmpty();
    }

    /** A hold never keeps a shard unowned: with no steady node left, a holding node takes a dead node's shards. */
    @Test
    void aNodeHoldingBackTakesOverTheShardsOfANodeThatDied() {
        ShardCoordinator observer = coordinator();
        CuttableCoordinator linkOfA = new CuttableCoordinator(coordinator());
        ScanEngine a = start("node-a", linkOfA, ScanClock.system(), DAMPING);
        CuttableCoordinator linkOfB = new CuttableCoordinator(coordinator());
        ScanEngine b = start("node-b", linkOfB, clockOfB, DAMPING);
        await().untilAsserted(() ->
                assertThat(ownerCounts(observer)).containsEntry("node-a", 8L).containsEntry("node-b", 8L));
        linkOfB.cut();
        await().atMost(TestTime.scaled(Duration.ofSeconds(20)))
                .until(() -> a.task(name).ownedShards().size() == SHARDS
                        && a.task(name).members().size() == 1);
        linkOfB.heal();
        await().until(() -> b.task(name).rejoinHold() != null);

        linkOfA.cut();
        await("node-b, holding back, takes over every shard of the dead node-a")
                .atMost(TestTime.scaled(Duration.ofSeconds(20)))
                .untilAsserted(() -> {
                    assertThat(ownerCounts(observer)).containsOnly(Map.entry("node-b", (long) SHARDS));
                    assertThat(b.task(name).ownedShards()).hasSize(SHARDS);
                });
        assertThat(b.task(name).rejoinHold()).as("still holding back").isNotNull();
        table.insert(1, 300, 100, Instant.now().minusSeconds(5));
        await().atMost(TestTime.scaled(Duration.ofSeconds(30))).until(() -> table.count("status = 1") == 300);
        assertThat(table.epochsWrittenByTwoNodes(SHARDS)).isEmpty();
    }

    /** {@code scan.rejoin-hold: 0}: a node that comes back takes its shards back at once, as before damping. */
    @Test
    void withTheHoldOffARejoiningNodeTakesItsShareBackAtOnce() {
        ShardCoordinator observer = coordinator();
        ScanEngine a = start("node-a", coordinator(), ScanClock.system(), RejoinDamping.OFF);
        CuttableCoordinator linkOfB = new CuttableCoordinator(coordinator());
        ScanEngine b = start("node-b", linkOfB, clockOfB, RejoinDamping.OFF);
        await().untilAsserted(() -> assertThat(ownerCounts(observer)).containsEntry("node-b", 8L));
        linkOfB.cut();
        await().atMost(TestTime.scaled(Duration.ofSeconds(20)))
                .until(() -> a.task(name).ownedShards().size() == SHARDS
                        && a.task(name).members().size() == 1);
        linkOfB.heal();
        await().untilAsserted(() ->
                assertThat(ownerCounts(observer)).containsEntry("node-a", 8L).containsEntry("node-b", 8L));
        assertThat(b.task(name).rejoinHold()).isNull();
        assertThat(leaseLog.warnings()).noneMatch(m -> m.contains("rejoined the members"));
    }

    private ScanEngine start(String node, ShardCoordinator coordinator, ScanClock clock, RejoinDamping damping) {
        Duration ttl = Engines.FAST_TTL;
        EngineSettings settings = new EngineSettings(
                node,
                ttl,
                Engines.FAST_RENEW,
                ttl,
                Duration.ofSeconds(10),
                null,
                WorkerThreads.PLATFORM,
                io.shardscan.core.task.EndpointDownClassifier.DEFAULT,
                1,
                damping);
        return engines.start(new ScanEngine(
                List.of(new ScanEngine.ScanTask(task(), effect)),
                new JdbcTaskStore(dataSource),
                coordinator,
                settings,
                clock,
                ScanListener.NONE));
    }

    private TaskDefinition task() {
        return TaskDefinition.builder(name)
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS)
                .build();
    }

    /** Each live lease as {@code owner/epoch}, by shard. */
    private Map<Integer, String> leases(ShardCoordinator observer) {
        Map<Integer, String> leases = new TreeMap<>();
        for (LeaseInfo lease : observer.leases(name)) {
            if (lease.owner() != null) {
                leases.put(lease.shard(), lease.owner() + "/" + lease.epoch());
            }
        }
        return leases;
    }

    private static String owner(String lease) {
        return lease.substring(0, lease.lastIndexOf('/'));
    }

    private Map<String, Long> ownerCounts(ShardCoordinator observer) {
        Map<String, Long> counts = new TreeMap<>();
        leases(observer).values().forEach(l -> counts.merge(owner(l), 1L, Long::sum));
        return counts;
    }

    private int effectsOf(String node) {
        return table.jdbc().queryForObject("SELECT COUNT(*) FROM effect WHERE node = ?", Integer.class, node);
    }
}
