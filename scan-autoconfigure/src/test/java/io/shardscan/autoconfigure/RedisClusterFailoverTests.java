package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.redis.RedisShardCoordinator;
import io.shardscan.testsupport.ChaosTests;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.LocalRedisCluster;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.TestTime;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;

/**
 * Two engines on PostgreSQL coordinated through a Redis Cluster of three masters with a replica each,
 * every engine on a {@link ScanRedisConnection} of its own as the starter builds it from {@code
 * spring.data.redis.cluster.nodes}. The master that holds the task's keys is killed with SIGKILL while
 * the engines hold every lease and rows flow; its replica takes over. Without a topology refresh on the
 * coordinator's client the engines would go on calling the dead master and never run a row again.
 */
@ChaosTests
class RedisClusterFailoverTests {

    static final String TASK = "orders";
    static final int SHARDS = 16;
    static final int ROWS = 30_000;
    static final Duration TTL = Duration.ofSeconds(6);
    static final Duration RENEW = Duration.ofSeconds(2);
    /** How long a master may be unreachable before its replica takes over (Redis's default is 15 s). */
    static final Duration NODE_TIMEOUT = Duration.ofSeconds(1);

    @RegisterExtension
    final Engines engines = new Engines();

    final List<ScanRedisConnection> connections = new ArrayList<>();
    final List<ScanEngine> started = new ArrayList<>();
    final AtomicLong effects = new AtomicLong();
    /** Simulated work per row: slow until the engines are seen running rows again, so rows stay pending. */
    volatile long handlerPauseNanos = Duration.ofMillis(20).toNanos();

    LocalRedisCluster redis;
    DataSource dataSource;
    OrderTable table;

    @BeforeEach
    void startClusterAndTable() throws IOException {
        // here rather than in a @BeforeAll, where Surefire would report no test at all, not a skipped one
        Optional<String> unavailable = LocalRedisCluster.unavailable();
        Assumptions.assumeTrue(unavailable.isEmpty(), unavailable::orElseThrow);
        redis = LocalRedisCluster.start(NODE_TIMEOUT);
        dataSource = TestServers.postgresDatabase("redis_cluster_failover");
        table = new OrderTable(dataSource).recreate(SHARDS, true).coordinationTables();
    }

    @AfterEach
    void stopEnginesThenConnectionsThenCluster() {
        started.forEach(ScanEngine::stop);
        connections.forEach(ScanRedisConnection::destroy);
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void aMastersReplicaTakesOverAndTheEnginesGoOnWithoutARestartLosingNothing() {
        table.insert(ROWS, 7_000, Instant.now().minusSeconds(5));
        Events events = new Events();
        ScanEngine a = start("node-a", events);
        ScanEngine b = start("node-b", events);
        await().untilAsserted(() -> {
            assertThat(a.task(TASK).ownedShards()).hasSize(SHARDS / 2);
            assertThat(b.task(TASK).ownedShards()).hasSize(SHARDS / 2);
        });
        await("rows flowing").until(() -> table.effects() >= 1_000);

        int victim = redis.masterOf("scan:{" + TASK + "}:lease:0");
        long claimsBefore = events.claims.get();
        long killedAt = System.nanoTime();
        redis.kill(victim);
        int promoted = redis.awaitPromoted(victim);
        long promotedAt = System.nanoTime();
        assertThat(redis.masterOf("scan:{" + TASK + "}:lease:0")).isEqualTo(promoted);

        // by one TTL after the kill every lease taken or renewed on the dead master has run out on its
        // node, which then starts no row: a row that starts later runs under a lease the engine renewed or
        // claimed on the promoted replica, through a client that learnt the new topology
        Duration resumedAfter = TTL.plus(RENEW);
        await("a row started more than " + resumedAfter.toSeconds() + " s after master " + victim
                        + " was killed, every shard owned and the coordinator reachable")
                .atMost(TestTime.BUDGET)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> events.lastStart.get() - killedAt > resumedAfter.toNanos()
                        && a.task(TASK).ownedShards().size()
                                        + b.task(TASK).ownedShards().size()
                                == SHARDS
                        && a.task(TASK).coordinatorReachable()
                        && b.task(TASK).coordinatorReachable());
        long resumedAt = System.nanoTime();
        int doneAtResume = table.count("status = 1");
        assertThat(doneAtResume)
                .as("rows done when the engines were seen running rows again")
                .isLessThan(ROWS);
        System.out.printf(
                "RedisClusterFailoverTests: master %d killed, replica %d promoted after %d ms; rows still starting"
                        + " and every shard owned %d ms after the kill (%d of %d rows done); %d leases lost and %d"
                        + " shards claimed since the kill%n",
                victim,
                promoted,
                TimeUnit.NANOSECONDS.toMillis(promotedAt - killedAt),
                TimeUnit.NANOSECONDS.toMillis(resumedAt - killedAt),
                doneAtResume,
                ROWS,
                events.lost.get(),
                events.claims.get() - claimsBefore);

        // the leases are on the promoted replica, every one held by a node of the cluster
        RedisShardCoordinator observer = coordinator();
        assertThat(observer.leases(TASK))
                .hasSize(SHARDS)
                .extracting(LeaseInfo::owner)
                .allMatch(owner -> "node-a".equals(owner) || "node-b".equals(owner));

        handlerPauseNanos = 0;
        await("every row done")
                .atMost(TestTime.scaled(Duration.ofSeconds(40)))
                .until(() -> table.count("status = 1") == ROWS);
        assertThat(table.count("status <> 1")).isZero();
        assertThat(table.ordersWithoutEffect())
                .as("done rows without an effect (lost)")
                .isZero();
        // at most the rows in flight while the leases were in doubt ran twice
        TaskDefinition task = a.task(TASK).definition();
        assertThat(table.duplicateEffects())
                .isLessThanOrEqualTo(2 * task.rounds().workers() * task.rounds().pageSize());
        assertThat(table.epochsWrittenByTwoNodes(SHARDS))
                .as("(shard, epoch) pairs written by more than one node")
                .isEmpty();
        assertThat(table.epochsGoingBackwards(SHARDS))
                .as("effects after a newer owner of their shard had run it")
                .isZero();
        assertThat(table.effectsNewerThanTheirFence(TASK, SHARDS)).isZero();
        // the fences hold the epochs the database issued the shards' current owners
        Map<Integer, Long> granted = new TreeMap<>(a.task(TASK).ownedShards());
        granted.putAll(b.task(TASK).ownedShards());
        assertThat(fences()).isEqualTo(granted).hasSize(SHARDS);
    }

    private ScanEngine start(String node, ScanListener listener) {
        TaskDefinition task = TaskDefinition.builder(TASK)
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS)
                .build();
        TaskHandler.PerRow handler = (row, ctx) -> {
            long pause = handlerPauseNanos;
            if (pause > 0) {
                LockSupport.parkNanos(pause);
            }
            return table.recordEffect(row, ctx, effects.incrementAndGet());
        };
        ScanEngine engine = engines.start(
                node,
                dataSource,
                coordinator(),
                new ScanEngine.ScanTask(task, handler),
                ScanClock.system(),
                listener,
                TTL,
                RENEW);
        started.add(engine);
        return engine;
    }

    /** A coordinator on a client of its own to the cluster, as the starter builds it for each node. */
    private RedisShardCoordinator coordinator() {
        List<DataRedisConnectionDetails.Node> nodes = redis.nodes().stream()
                .map(node -> new DataRedisConnectionDetails.Node(node.getHostString(), node.getPort()))
                .toList();
        DataRedisConnectionDetails details = new DataRedisConnectionDetails() {
            @Override
            public Cluster getCluster() {
                return () -> nodes;
            }
        };
        ScanRedisConnection connection = new ScanRedisConnection(details, TTL, "");
        connections.add(connection);
        return new RedisShardCoordinator(connection.connectionFactory(), connection.namespace());
    }

    private Map<Integer, Long> fences() {
        Map<Integer, Long> fences = new TreeMap<>();
        table.jdbc()
                .query(
                        "SELECT shard, epoch FROM scan_fence WHERE task = ?",
                        rs -> {
                            fences.put(rs.getInt("shard"), rs.getLong("epoch"));
                        },
                        TASK);
        return fences;
    }

    /** The engines' own events: when a handler last started (System.nanoTime), leases lost and claimed. */
    private static final class Events implements ScanListener {

        final AtomicLong lastStart = new AtomicLong();
        final AtomicInteger lost = new AtomicInteger();
        final AtomicLong claims = new AtomicLong();

        @Override
        public Timing handlerStarted(String task, Tier tier) {
            lastStart.accumulateAndGet(System.nanoTime(), Math::max);
            return Timing.NONE;
        }

        @Override
        public void shardClaimed(String task, int shard, long epoch) {
            claims.incrementAndGet();
        }

        @Override
        public void leaseLost(String task, int shard) {
            lost.incrementAndGet();
        }
    }
}
