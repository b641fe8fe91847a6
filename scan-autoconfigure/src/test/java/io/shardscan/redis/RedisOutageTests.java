package io.shardscan.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.Tier;
import io.shardscan.testsupport.ChaosTests;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.RedisServerHandle;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two engines on PostgreSQL and the tests' Redis, with Redis stopped for 10 s mid-run (and, as it
 * keeps no data, restarted empty): the engines fence themselves off, then rejoin and finish the work.
 */
@ChaosTests
class RedisOutageTests {

    static final Duration TTL = RedisNodes.TTL;
    static final Duration OUTAGE = Duration.ofSeconds(10);
    static final int ROWS = 20_000;

    @RegisterExtension
    final Engines engines = new Engines();

    final RedisServerHandle server = TestServers.redis();
    /** Slow until the engines are back, so that rows are still pending across the whole outage. */
    final RedisNodes cluster = new RedisNodes(engines, "redis_outage", Duration.ofMillis(500), Duration.ofMillis(20));

    final OrderTable table = cluster.table;
    final String name = cluster.name;
    final TaskDefinition task = cluster.task;

    @BeforeAll
    static void redisCanBeStopped() {
        Assumptions.assumeTrue(
                TestServers.redis().isManaged(), "SCAN_TEST_REDIS_URL points at a Redis these tests cannot stop");
    }

    @AfterEach
    void restartRedisStopEnginesThenConnections() {
        server.start(); // no-op unless a failed test left it stopped
        cluster.close(false);
    }

    @Test
    void enginesFenceThemselvesOffWhileRedisIsDownThenReclaimEveryShardAndLoseNothing() {
        table.insert(ROWS, 5_000, Instant.now().minusSeconds(5));
        // when the nodes last started a handler, as their own worker threads read the clock at the start
        AtomicLong lastStart = new AtomicLong();
        ScanEngine a = cluster.start("node-a", starts(lastStart));
        ScanEngine b = cluster.start("node-b", starts(lastStart));
        await().untilAsserted(() -> assertThat(cluster.owners()).isEqualTo(Map.of("node-a", 32L, "node-b", 32L)));
        await().untilAsserted(() -> assertThat(a.task(name).ownedShards().size()
                        + b.task(name).ownedShards().size())
                .isEqualTo(64));
        Map<Integer, Long> epochsBefore = new HashMap<>(a.task(name).ownedShards());
        epochsBefore.putAll(b.task(name).ownedShards());
        assertThat(epochsBefore).hasSize(64);

        long stoppedAt = System.nanoTime();
        server.stop();

        // self-fencing: each engine stops dispatching within the lease TTL of the stop, as the engines'
        // own readings at each handler start say (not when this thread saw the shards go)
        await().untilAsserted(() -> {
            assertThat(a.task(name).ownedShards()).isEmpty();
            assertThat(b.task(name).ownedShards()).isEmpty();
        });
        assertThat(Duration.ofNanos(lastStart.get() - stoppedAt))
                .as("the last handler start after Redis stopped")
                .isLessThanOrEqualTo(TTL);
        assertThat(a.task(name).coordinatorReachable()).isFalse();
        assertThat(b.task(name).coordinatorReachable()).isFalse();
        // a handler call that was running at the deadline may still finish; none may start after it
        await().until(() ->
                a.task(name).stats().inFlight() == 0 && b.task(name).stats().inFlight() == 0);
        int effectsWhileFenced = table.effects();
        // a window, as an outage is a time: while Redis is down nothing is held and nothing runs
        Duration rest = OUTAGE.minus(Duration.ofNanos(System.nanoTime() - stoppedAt));
        await().during(rest).atMost(rest.plusSeconds(5)).untilAsserted(() -> {
            assertThat(a.task(name).ownedShards()).isEmpty();
            assertThat(b.task(name).ownedShards()).isEmpty();
            assertThat(table.effects()).isEqualTo(effectsWhileFenced);
        });
        int pendingAtRestart = table.count("status = 0");
        assertThat(pendingAtRestart).as("rows left for after the outage").isPositive();

        server.start();
        // rejoin and reclaim: the restarted, empty Redis grants every shard again, balanced
        await().ignoreExceptions()
                .untilAsserted(() -> assertThat(cluster.owners()).isEqualTo(Map.of("node-a", 32L, "node-b", 32L)));
        await().untilAsserted(() -> {
            assertThat(a.task(name).ownedShards()).hasSize(32);
            assertThat(b.task(name).ownedShards()).hasSize(32);
        });
        assertThat(a.task(name).coordinatorReachable()).isTrue();
        assertThat(b.task(name).coordinatorReachable()).isTrue();
        cluster.handlerPauseNanos = Duration.ofMillis(1).toNanos();

        await().atMost(TestTime.scaled(Duration.ofSeconds(40))).until(() -> table.count("status = 1") == ROWS);
        // nothing lost
        assertThat(table.count("status <> 1")).isZero();
        assertThat(table.effects()).isGreaterThanOrEqualTo(ROWS);
        assertThat(table.ordersWithoutEffect())
                .as("done rows without an effect")
                .isZero();
        // at most the rows in flight when the leases lapsed ran twice
        assertThat(table.duplicateEffects())
                .isLessThanOrEqualTo(2 * task.rounds().workers() * task.rounds().pageSize());
        // the fence of every shard holds the epoch the database issued its current owner after the
        // restart, newer than the one before the outage
        Map<Integer, Long> fences = fences();
        Map<Integer, Long> granted = new TreeMap<>(a.task(name).ownedShards());
        granted.putAll(b.task(name).ownedShards());
        assertThat(fences).isEqualTo(granted).hasSize(64);
        fences.forEach(
                (shard, epoch) -> assertThat(epoch).as("shard %d", shard).isGreaterThan(epochsBefore.get(shard)));
        // in the order the effects were made, no shard's epoch ever goes back: once a newer owner
        // ran a shard, no stale owner did
        assertThat(table.epochsGoingBackwards(64)).isZero();
        // and every effect ran under an epoch some owner was granted: none newer than its shard's fence
        assertThat(table.effectsNewerThanTheirFence(name, 64)).isZero();
    }

    private Map<Integer, Long> fences() {
        Map<Integer, Long> fences = new TreeMap<>();
        table.jdbc()
                .query(
                        "SELECT shard, epoch FROM scan_fence WHERE task = ?",
                        rs -> {
                            fences.put(rs.getInt("shard"), rs.getLong("epoch"));
                        },
                        name);
        return fences;
    }

    /** Keeps in {@code lastStart} when a handler last started (System.nanoTime), as the worker reads it. */
    private static ScanListener starts(AtomicLong lastStart) {
        return new ScanListener() {
            @Override
            public Timing handlerStarted(String task, Tier tier) {
                lastStart.accumulateAndGet(System.nanoTime(), Math::max);
                return Timing.NONE;
            }
        };
    }
}
