package io.shardscan.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.StaticShardCoordinator;
import io.shardscan.core.TaskStats;
import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.CuttableCoordinator;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The database, not the coordinator, issues the fencing epoch: on PostgreSQL and the tests' Redis,
 * switching one task between Redis, JDBC and static coordination loses nothing, a Redis that fails
 * over to a stale replica and repeats a lease id never lets two nodes write under one epoch, and
 * every refusal or failure of the fence is logged and counted.
 */
@ServerTests
class FenceEpochTests {

    static final int SHARDS = 64;
    static final int ROWS = 1000;
    static final String KEEPER_LOGGER = "io.shardscan.core.LeaseKeeper";

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final CapturedLog keeperLog = new CapturedLog(KEEPER_LOGGER);

    /** Every engine class's lines, wherever a refused write-back may come to be logged. */
    @RegisterExtension
    final CapturedLog coreLog = new CapturedLog("io.shardscan.core");

    final CountDownLatch renewals = new CountDownLatch(1);
    final CountDownLatch releaseA = new CountDownLatch(1);
    final CountDownLatch releaseB = new CountDownLatch(1);
    volatile ScanEngine nodeA;
    RedisNodes nodes;

    @AfterEach
    void stopEnginesThenConnections() {
        renewals.countDown();
        releaseA.countDown();
        releaseB.countDown();
        if (nodes != null) {
            nodes.table.jdbc().execute("DROP TRIGGER IF EXISTS fence_refused ON scan_fence");
            nodes.close(true);
        }
    }

    @Test
    void switchingCoordinatorsOnOneDatabaseLosesNothing() {
        nodes = new RedisNodes(engines, "fence_epoch", Duration.ofSeconds(2), Duration.ZERO, SHARDS);
        Map<Integer, Long> fences = phase(1, "redis", nodes.coordinator(), nodes.coordinator(), Map.of());
        // Redis's lease ids start from its clock in microseconds, far above the fence epochs: written
        // to the fence as they were, no JDBC or static lease id could ever pass it again
        assertThat(nodes.observer().leases(nodes.name))
                .extracting(LeaseInfo::epoch)
                .allSatisfy(id -> assertThat(id).isGreaterThan(1_000_000_000_000L));
        fences = phase(
                2,
                "jdbc",
                new JdbcShardCoordinator(nodes.dataSource),
                new JdbcShardCoordinator(nodes.dataSource),
                fences);
        fences = phase(3, "redis", nodes.coordinator(), nodes.coordinator(), fences);
        phase(
                4,
                "static",
                new StaticShardCoordinator(0, 2, ScanClock.system()),
                new StaticShardCoordinator(1, 2, ScanClock.system()),
                fences);
    }

    @Test
    void aRolledBackRedisEpochCounterNeverLetsTwoNodesWriteUnderOneEpoch() throws Exception {
        Takeover takeover = failOverToAStaleReplicaWhileNodeAHandles(false);

        assertThat(takeover.leaseB())
                .as("the stale replica repeats A's lease id")
                .isEqualTo(takeover.leaseA());
        assertThat(takeover.fenceB()).isGreaterThan(takeover.fenceA());
        assertThat(fenceEpochs()).containsExactly(Map.entry(0, takeover.fenceB()));
        assertThat(nodes.table.count("order_id = 1 AND status = 0 AND retry_count = 0 AND last_error IS NULL"))
                .as("A's late write-back (dead) changed nothing")
                .isEqualTo(1);
        TaskStats statsA = takeover.a().task(nodes.name).stats();
        assertThat(statsA.writeBacksRefused()).isEqualTo(1);
        assertThat(statsA.processed() + statsA.failed() + statsA.dead()).isZero();

        releaseB.countDown();
        await().until(() -> nodes.table.count("status = 1") == 1);
        assertThat(effects())
                .containsExactlyInAnyOrder(
                        new Effect(0, takeover.fenceA(), "node-a"), new Effect(0, takeover.fenceB(), "node-b"));
        assertThat(epochsWithEffectsOfTwoNodes()).isEmpty();
    }

    @Test
    void aWriteBackRefusedByTheFenceIsLoggedAndCounted() throws Exception {
        // what A had counted as each of its lines was logged: a count comes after its lines, so that
        // whoever sees the count finds them (a test that read the lines on seeing it once found none)
        List<Long> countedAtTheLines = new CopyOnWriteArrayList<>();
        coreLog.whenLogged(record -> {
            if (record.getLevel() == java.util.logging.Level.WARNING && nodeA != null) {
                TaskStats stats = nodeA.task(nodes.name).stats();
                countedAtTheLines.add(stats.writeBacksRefused() + stats.leasesLost());
            }
        });
        Takeover takeover = failOverToAStaleReplicaWhileNodeAHandles(false);

        assertThat(countedAtTheLines)
                .as("refused write-backs and lost leases counted when each of A's WARN lines was logged")
                .containsOnly(0L);
        TaskStats statsA = takeover.a().task(nodes.name).stats();
        assertThat(statsA.writeBacksRefused()).isEqualTo(1);
        assertThat(statsA.leasesLost()).isEqualTo(1);
        assertThat(keeperLog.warnings())
                .containsExactly("Task " + nodes.name + ": shard 0 (fence epoch " + takeover.fenceA()
                        + ") fenced off, a newer owner took it (fence epoch " + takeover.fenceA() + " superseded);"
                        + " no more of its rows are started here");
        assertThat(coreLog.warnings())
                .contains("Task " + nodes.name + " shard 0: write-back under fence epoch " + takeover.fenceA()
                        + " refused, a newer owner has the shard; 1 outcomes discarded, the new owner runs those rows"
                        + " again");
    }

    @Test
    void aWriteBackRefusedAfterTheLossWasReportedIsStillLogged() throws Exception {
        Takeover takeover = failOverToAStaleReplicaWhileNodeAHandles(true);

        TaskStats statsA = takeover.a().task(nodes.name).stats();
        assertThat(statsA.writeBacksRefused()).isEqualTo(1);
        assertThat(statsA.leasesLost()).isEqualTo(1);
        assertThat(keeperLog.warnings())
                .first()
                .isEqualTo("Task " + nodes.name + ": shard 0 (fence epoch " + takeover.fenceA() + ") fenced off,"
                        + " its lease renewal was refused; no more of its rows are started here");
        assertThat(coreLog.warnings())
                .as("a line about the refused write-back and its discarded outcomes")
                .anyMatch(warning -> warning.contains("shard 0") && warning.contains("1 outcomes discarded"));
    }

    @Test
    void aClaimWhoseFenceCannotBeRaisedIsLoggedCountedAndGivenBack() {
        nodes = new RedisNodes(engines, "fence_epoch", Duration.ofSeconds(2), Duration.ZERO, 1);
        nodes.table.insert(1, 1, Instant.now());
        nodes.table
                .jdbc()
                .execute("CREATE OR REPLACE FUNCTION refuse_fence() RETURNS trigger AS $$"
                        + " BEGIN RAISE EXCEPTION 'fence refused by the test'; END $$ LANGUAGE plpgsql");
        nodes.table
                .jdbc()
                .execute("CREATE TRIGGER fence_refused BEFORE INSERT OR UPDATE ON scan_fence"
                        + " FOR EACH ROW EXECUTE FUNCTION refuse_fence()");
        ScanEngine a = nodes.start("node-a");
        TaskStats stats = a.task(nodes.name).stats();

        await().until(() -> stats.fenceFailures() >= 2);
        assertThat(keeperLog.warnings()).isNotEmpty().allSatisfy(warning -> assertThat(warning)
                .startsWith("Task " + nodes.name + ": shard 0 was granted but its fence could not be raised"
                        + " in the database, so it is given back and claimed again later: ")
                .contains("fence refused by the test"));
        assertThat(a.task(nodes.name).ownedShards()).isEmpty();
        assertThat(nodes.table.count("status <> 0")).isZero();
        assertThat(nodes.table.effects()).isZero();
        // given back at once rather than left to expire: between two tries nobody holds the lease
        await().atMost(TestTime.scaled(Duration.ofSeconds(2)))
                .until(() -> nodes.redis().opsForValue().get(new TaskKeys(nodes.name).lease(0)) == null);

        nodes.table.jdbc().execute("DROP TRIGGER fence_refused ON scan_fence");
        await().until(() -> nodes.table.count("status = 1") == 1);
        assertThat(fenceEpochs()).as("a failed raise issues no epoch").containsExactly(Map.entry(0, 1L));
        assertThat(effects()).containsExactly(new Effect(0, 1, "node-a"));
    }

    /**
     * One phase of the coordinator switch: 1 000 new rows, two nodes of one kind until all are done,
     * then both stopped; every shard's fence must have risen and every effect carry a fence epoch.
     */
    private Map<Integer, Long> phase(
            int phase, String kind, ShardCoordinator first, ShardCoordinator second, Map<Integer, Long> before) {
        OrderTable table = nodes.table;
        table.insert((phase - 1L) * ROWS + 1, ROWS, 97, Instant.now());
        List<ScanEngine> running = new ArrayList<>();
        running.add(nodes.start(kind + "-" + phase + "-a", first));
        running.add(nodes.start(kind + "-" + phase + "-b", second));
        await().alias("phase " + phase + " (" + kind + ") finishes its rows")
                .until(() -> table.count("status = 1") == phase * ROWS);
        running.forEach(ScanEngine::stop);

        assertThat(table.count("status <> 1")).isZero();
        assertThat(table.effects()).isEqualTo(phase * ROWS);
        assertThat(table.duplicateEffects()).isZero();
        assertThat(nodes.epochsGoingBackwards()).isZero();
        Map<Integer, Long> fences = fenceEpochs();
        assertThat(fences).hasSize(SHARDS);
        fences.forEach((shard, epoch) -> assertThat(epoch)
                .as("phase %d (%s): fence of shard %d", phase, kind, shard)
                .isGreaterThan(before.getOrDefault(shard, 0L)));
        assertThat(table.jdbc()
                        .queryForObject(
                                "SELECT COUNT(*) FROM effect e JOIN scan_fence f ON f.task = ?"
                                        + " AND f.shard = mod(e.user_id, " + SHARDS + ") WHERE e.epoch > f.epoch",
                                Integer.class,
                                nodes.name))
                .as("effects under an epoch their shard's fence never issued")
                .isZero();
        return fences;
    }

    /**
     * Node A (one shard, one row) is inside its handler when Redis fails over to a replica that
     * never saw A's grant: A's lease and membership are gone and the task's counter is one below
     * A's lease id. A's Redis calls stall meanwhile, so A neither renews nor learns of the loss.
     * Node B joins, is granted the same lease id and starts on the row too; then A's handler ends
     * with the row dead and its write-back is refused. B's handler is still held when this returns.
     * With {@code renewalRefusedFirst}, A's stalled renewal goes through (and is refused) before
     * A's handler ends, so A knows of the loss before its write-back.
     */
    private Takeover failOverToAStaleReplicaWhileNodeAHandles(boolean renewalRefusedFirst) throws Exception {
        nodes = new RedisNodes(engines, "fence_epoch", Duration.ofSeconds(2), Duration.ZERO, 1);
        nodes.table.insert(1, 1, Instant.now());
        CountDownLatch enteredA = new CountDownLatch(1);
        CountDownLatch enteredB = new CountDownLatch(1);
        CuttableCoordinator coordinatorA = new CuttableCoordinator(nodes.coordinator());
        ScanEngine a = nodes.start("node-a", coordinatorA, held("node-a", enteredA, releaseA, Outcome.dead("stale")));
        nodeA = a;
        assertThat(enteredA.await(TestTime.BUDGET.toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
        long fenceA = a.task(nodes.name).ownedShards().get(0);
        long leaseA = leaseId("node-a");

        // A's renewals and its lease ticks stall: it neither renews nor heartbeats back into the members
        coordinatorA.holdRenewalsUntil(renewals);
        coordinatorA.holdTicksUntil(renewals);
        await().until(() -> coordinatorA.renewalsWaiting() == 1);
        StringRedisTemplate redis = nodes.redis();
        TaskKeys keys = new TaskKeys(nodes.name);
        redis.delete(List.of(keys.lease(0), keys.epochs(), keys.members()));
        redis.opsForValue().set(keys.epoch(), Long.toString(leaseA - 1));

        ScanEngine b = nodes.start("node-b", nodes.coordinator(), held("node-b", enteredB, releaseB, null));
        await().until(() -> b.task(nodes.name).ownedShards().containsKey(0));
        long fenceB = b.task(nodes.name).ownedShards().get(0);
        long leaseB = leaseId("node-b");
        assertThat(enteredB.await(TestTime.BUDGET.toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();

        if (renewalRefusedFirst) {
            renewals.countDown();
            await().until(() -> a.task(nodes.name).stats().leasesLost() > 0);
        }
        releaseA.countDown();
        await().until(() -> a.task(nodes.name).stats().writeBacksRefused() > 0);
        return new Takeover(a, leaseA, fenceA, leaseB, fenceB);
    }

    /** Waits in the handler until {@code release} opens, then records the effect and returns {@code outcome}. */
    private TaskHandler.PerRow held(String node, CountDownLatch entered, CountDownLatch release, Outcome outcome) {
        TaskHandler.PerRow effect = nodes.effect(node);
        return (row, ctx) -> {
            entered.countDown();
            release.await(20, TimeUnit.SECONDS);
            effect.handle(row, ctx);
            return outcome;
        };
    }

    /** The lease id {@code node} holds on shard 0, read from its lease key ("id:node"). */
    private long leaseId(String node) {
        String value = nodes.redis().opsForValue().get(new TaskKeys(nodes.name).lease(0));
        assertThat(value).endsWith(":" + node);
        return Long.parseLong(value.substring(0, value.indexOf(':')));
    }

    private Map<Integer, Long> fenceEpochs() {
        Map<Integer, Long> fences = new TreeMap<>();
        nodes.table
                .jdbc()
                .query(
                        "SELECT shard, epoch FROM scan_fence WHERE task = ?",
                        rs -> {
                            fences.put(rs.getInt(1), rs.getLong(2));
                        },
                        nodes.name);
        return fences;
    }

    private List<Effect> effects() {
        return nodes.table
                .jdbc()
                .query(
                        "SELECT mod(user_id, " + nodes.shards + "), epoch, node FROM effect",
                        (rs, n) -> new Effect(rs.getInt(1), rs.getLong(2), rs.getString(3)));
    }

    /** (shard, epoch) pairs under which more than one node made an effect. */
    private List<String> epochsWithEffectsOfTwoNodes() {
        return nodes.table.epochsWrittenByTwoNodes(nodes.shards);
    }

    private record Effect(int shard, long epoch, String node) {}

    private record Takeover(ScanEngine a, long leaseA, long fenceA, long leaseB, long fenceB) {}
}
