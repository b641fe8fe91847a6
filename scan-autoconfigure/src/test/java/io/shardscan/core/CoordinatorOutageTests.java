package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.task.MatchOverlap;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.CuttableCoordinator;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A node whose coordinator (a real JDBC one on H2) fails or hangs: its stop stays within the
 * shutdown timeout and calls the coordinator once, not once per shard; a hanging lease renewal or
 * tick shows as an unreachable coordinator while it hangs, and only a hanging renewal costs leases.
 */
class CoordinatorOutageTests {

    static final int SHARDS = 40;
    static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(2);

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final CapturedLog leaseLog = new CapturedLog(LeaseKeeper.class.getName());

    @RegisterExtension
    final CapturedLog releaseLog = new CapturedLog(ReleasePass.class.getName());

    final DataSource dataSource = TestServers.h2("coordinator_outage");
    final CountDownLatch open = new CountDownLatch(1);
    CuttableCoordinator coordinator;
    OrderTable table;

    @BeforeEach
    void setUp() {
        table = new OrderTable(dataSource).recreate(SHARDS, true).coordinationTables();
        coordinator = new CuttableCoordinator(new JdbcShardCoordinator(dataSource));
    }

    @AfterEach
    void openTheCoordinator() {
        open.countDown();
    }

    ScanEngine startHoldingEveryShard() {
        ScanEngine engine = start("node-1", coordinator);
        await().until(() -> engine.task("orders").ownedShards().size() == SHARDS);
        return engine;
    }

    ScanEngine start(String node, ShardCoordinator coordinator) {
        return start(node, coordinator, List.of(task("orders", SHARDS)));
    }

    static ScanEngine.ScanTask task(String name, int shards) {
        TaskDefinition task = TaskDefinition.builder(name)
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(shards)
                .matchOverlap(MatchOverlap.ALLOWED)
                .build();
        return new ScanEngine.ScanTask(task, (TaskHandler.PerRow) (row, ctx) -> Outcome.done());
    }

    ScanEngine start(String node, ShardCoordinator coordinator, List<ScanEngine.ScanTask> tasks) {
        EngineSettings settings =
                new EngineSettings(node, Engines.FAST_TTL, Engines.FAST_RENEW, Engines.FAST_TTL, SHUTDOWN_TIMEOUT);
        return engines.start(new ScanEngine(
                tasks, new JdbcTaskStore(dataSource), coordinator, settings, ScanClock.system(), ScanListener.NONE));
    }

    @Test
    void afterAFailedReleaseTheStopLeavesTheOtherShardsToExpire() {
        ScanEngine engine = startHoldingEveryShard();
        // the old loop waited this long for each of the 40 shards, 20 s in all
        coordinator.failReleasesAfter(Duration.ofMillis(500));

        engine.stop();

        assertThat(coordinator.releases()).isEqualTo(1);
        assertThat(releaseLog.warnings()).hasSize(1);
        assertThat(releaseLog.warnings().get(0))
                .contains("Task orders: its release of shard ")
                .contains("failed: java.lang.IllegalStateException: release failed")
                .contains("the leases of shards [0, 1, 2, ")
                .contains(", 39] are left to expire within scan.lease-ttl (PT2S)")
                .contains("drops out of the members after scan.member-timeout");
    }

    @Test
    void stopReturnsWithinTheShutdownTimeoutWhileTheCoordinatorHangs() {
        ScanEngine engine = startHoldingEveryShard();
        coordinator.hangReleasesUntil(open);

        CompletableFuture<Void> stop = CompletableFuture.runAsync(engine::stop);

        // the shutdown timeout, a third of the TTL and a margin for a loaded machine; the release hangs 60 s
        await().atMost(SHUTDOWN_TIMEOUT.plusSeconds(10)).until(stop::isDone);
        assertThat(coordinator.releases()).isEqualTo(1);
        assertThat(releaseLog.warnings())
                .singleElement()
                .asString()
                .contains("the coordinator did not answer a release within scan.shutdown-timeout (PT2S)")
                .contains("the leases of shards [0, 1, 2, ");
    }

    @Test
    void aLeaseRenewalThatHangsPastTheTtlShowsTheCoordinatorUnreachableUntilItReturns() {
        ScanEngine engine = startHoldingEveryShard();
        TaskView task = engine.task("orders");
        assertThat(task.coordinatorReachable()).isTrue();

        coordinator.holdRenewalsUntil(open);

        // the TTL (2 s) and a margin for a loaded machine; the renewal hangs 30 s. The node logs it unasked
        await().until(() -> !unreachable().isEmpty());
        assertThat(task.coordinatorReachable()).isFalse();
        assertThat(unreachable())
                .singleElement()
                .asString()
                .contains("Task orders: coordinator unreachable (jdbc), leases lapse")
                .contains("its lease renewal has not returned for ")
                .contains("longer than scan.lease-ttl (PT2S)");
        await().until(() -> task.ownedShards().isEmpty());
        // and it claims none back while the renewal hangs: each would lapse again a TTL later (under
        // load, shards lost and claimed again at different times never were all lost at once)
        int granted = coordinator.granted();
        int ticks = coordinator.heartbeats();
        await().until(() -> coordinator.heartbeats() >= ticks + 3);
        assertThat(coordinator.granted())
                .as("leases granted while the renewal hangs")
                .isEqualTo(granted);
        assertThat(task.ownedShards()).isEmpty();

        open.countDown();
        await().until(task::coordinatorReachable);
        assertThat(leaseLog.messages(java.util.logging.Level.INFO))
                .contains("Task orders: coordinator reachable again (jdbc)");
        await().until(() -> task.ownedShards().size() == SHARDS);
    }

    /**
     * A RedisOutageTests run read a node unreachable right after it had claimed every shard back: the
     * renewal that failed in the outage was the last it made (a node holding nothing renews nothing),
     * so its failure stood until the first renewal after the claims. Here that renewal is held: the
     * node must read reachable once the coordinator granted its claims.
     */
    @Test
    void aNodeThatClaimedItsShardsBackAfterAnOutageIsReachableBeforeItsNextRenewal() {
        ScanEngine engine = startHoldingEveryShard();
        TaskView task = engine.task("orders");
        coordinator.cut();
        await().until(() -> !task.coordinatorReachable() && task.ownedShards().isEmpty());

        coordinator.holdRenewalsUntil(open);
        coordinator.heal();
        await().until(() -> task.ownedShards().size() == SHARDS);

        assertThat(task.coordinatorReachable()).isTrue();
        open.countDown();
    }

    @Test
    void aLeaseTickThatHangsPastTheTtlShowsTheCoordinatorUnreachableButCostsNoLease() {
        ScanEngine engine = startHoldingEveryShard();
        TaskView task = engine.task("orders");

        coordinator.holdTicksUntil(open);

        // the node's renewals go on apart from the tick, which hangs 60 s
        await().until(() -> !unreachable().isEmpty());
        assertThat(unreachable())
                .singleElement()
                .asString()
                .contains("Task orders: coordinator unreachable (jdbc), this node claims and hands over no shard")
                .contains("its leases are kept while their renewals go through")
                .contains("its lease tick has not returned for ");
        assertThat(task.ownedShards()).hasSize(SHARDS);
        assertThat(task.stats().leasesLost()).isZero();

        open.countDown();
        await().until(task::coordinatorReachable);
        assertThat(task.stats().leasesLost()).isZero();
    }

    List<String> unreachable() {
        return leaseLog.warnings().stream()
                .filter(line -> line.contains("coordinator unreachable"))
                .toList();
    }

    @Test
    void aRebalancesHandoversStopAtTheFirstFailedReleaseOfTheirTick() {
        ScanEngine first = startHoldingEveryShard();
        coordinator.failReleasesAfter(Duration.ofMillis(100));

        ScanEngine second = start("node-2", new JdbcShardCoordinator(dataSource));

        // the shards handed over without a release are the second node's once their leases expired
        await().untilAsserted(() -> {
            assertThat(second.task("orders").ownedShards()).hasSize(SHARDS / 2);
            assertThat(first.task("orders").ownedShards()).hasSize(SHARDS / 2);
        });
        // one failed release per tick that handed shards over, not one per shard (20)
        assertThat(coordinator.releases()).isBetween(1, 3);
        assertThat(releaseLog.warnings()).hasSize(coordinator.releases()).allSatisfy(line -> assertThat(line)
                .contains("are left to expire within scan.lease-ttl (PT2S)"));
    }

    @Test
    void everyTaskOfANodeStopsAtOnceWhileTheCoordinatorHangs() {
        // more tasks than a parallel stream on the common pool stops at once on this machine
        int count = Runtime.getRuntime().availableProcessors() + 2;
        // the tasks' shard count is the shard column's
        table = new OrderTable(dataSource).recreate(2, true).coordinationTables();
        List<ScanEngine.ScanTask> tasks = java.util.stream.IntStream.range(0, count)
                .mapToObj(i -> task("orders-" + i, 2))
                .toList();
        ScanEngine engine = start("node-1", coordinator, tasks);
        await().until(() -> tasks.stream()
                .allMatch(t -> engine.task(t.definition().name()).ownedShards().size() == 2));
        coordinator.hangReleasesUntil(open);

        CompletableFuture<Void> stop = CompletableFuture.runAsync(engine::stop);

        await().atMost(SHUTDOWN_TIMEOUT.plusSeconds(10)).until(stop::isDone);
        assertThat(coordinator.mostReleasesHanging()).isEqualTo(count);
        assertThat(releaseLog.warnings()).hasSize(count);
    }

    @Test
    void aLeaseTickThatReturnsAfterTheStopClaimsNothing() throws InterruptedException {
        ScanEngine engine = startHoldingEveryShard();
        coordinator.holdTicksUntil(open);
        await().until(() -> coordinator.ticksHeld() == 1);
        Thread leaseThread = leaseThread();

        engine.stop();
        assertThat(ownedBy("node-1")).isZero();
        open.countDown();

        // the late tick finds every shard free and this node the only member again; then its thread ends
        leaseThread.join(Duration.ofSeconds(30).toMillis());
        assertThat(leaseThread.isAlive()).isFalse();
        assertThat(ownedBy("node-1")).isZero();
    }

    @Test
    void theStopInterruptsALeaseRenewalThatWaitsForTheCoordinator() throws InterruptedException {
        ScanEngine engine = startHoldingEveryShard();
        coordinator.holdRenewalsUntil(open);
        await().until(() -> coordinator.renewalsWaiting() == 1);
        Thread leaseThread = thread("scan-lease-renew-");

        engine.stop();

        // the renewal would wait 30 s; interrupted, it ends (as a pool's wait for a connection does)
        leaseThread.join(Duration.ofSeconds(10).toMillis());
        assertThat(leaseThread.isAlive()).isFalse();
    }

    /**
     * A tick whose grant answers after the stop has released everything (the stop waits for a tick
     * only a renew interval): the node gives that lease back at once and holds no shard after the
     * stop; before, the shard was held past the stop and its lease left to expire ("took shards"
     * logged after "stopped", ShutdownLogTests under load).
     */
    @Test
    void aGrantThatAnswersAfterTheStopIsGivenBackAtOnce() {
        coordinator.holdGrantsUntil(open);
        ScanEngine engine = start("node-1", coordinator);
        await().until(() -> coordinator.grantsHeld() == 1);
        int shard = coordinator.leases("orders").stream()
                .filter(lease -> "node-1".equals(lease.owner()))
                .mapToInt(LeaseInfo::shard)
                .findFirst()
                .orElseThrow();

        engine.stop();
        open.countDown();

        await().until(() -> coordinator.releasedShards().contains(shard));
        assertThat(engine.task("orders").ownedShards()).isEmpty();
        assertThat(coordinator.leases("orders"))
                .filteredOn(lease -> "node-1".equals(lease.owner()))
                .isEmpty();
    }

    @Test
    void aRoundThatOutlastsTheShutdownTimeoutStillLeavesTimeToReleaseItsShard() {
        table = new OrderTable(dataSource).recreate(1, true).coordinationTables();
        table.insert(1, 1, java.time.Instant.now().minusSeconds(5));
        CountDownLatch handling = new CountDownLatch(1);
        ScanEngine.ScanTask blocking = new ScanEngine.ScanTask(
                TaskDefinition.builder("orders")
                        .table("tb_order")
                        .idColumn("order_id")
                        .shardKeyColumn("user_id")
                        .shards(1)
                        .build(),
                (TaskHandler.PerRow) (row, ctx) -> {
                    handling.countDown();
                    open.await();
                    return Outcome.done();
                });
        ScanEngine engine = start("node-1", coordinator, List.of(blocking));
        await().until(() -> handling.getCount() == 0);

        engine.stop();

        // the round used the whole shutdown timeout; the release had a third of the TTL after it
        assertThat(coordinator.releases()).isEqualTo(1);
        assertThat(ownedBy("node-1")).isZero();
        assertThat(releaseLog.warnings()).isEmpty();
    }

    static Thread leaseThread() {
        return thread("scan-orders-lease-");
    }

    static Thread thread(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith(prefix) && t.isAlive())
                .findFirst()
                .orElseThrow();
    }

    long ownedBy(String node) {
        return new JdbcShardCoordinator(dataSource)
                .leases("orders").stream().filter(l -> node.equals(l.owner())).count();
    }
}
