package io.shardscan.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.LeaseInfo;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.TaskDefinition;
import io.shardscan.core.TaskHandler;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.RedisServerHandle;
import io.shardscan.testsupport.TestServers;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Two engines on PostgreSQL and the tests' Redis, with Redis stopped for 10 s mid-run (and, as it
 * keeps no data, restarted empty): the engines fence themselves off, then rejoin and finish the work.
 */
class RedisOutageTests {

    static final Duration TTL = Duration.ofSeconds(6);
    static final Duration RENEW = Duration.ofSeconds(2);
    static final Duration OUTAGE = Duration.ofSeconds(10);
    static final int ROWS = 20_000;

    @RegisterExtension
    final Engines engines = new Engines();

    final RedisServerHandle server = TestServers.redis();
    final DataSource dataSource = TestServers.postgresDatabase("redis_outage");
    final OrderTable table = new OrderTable(dataSource).recreate(64, true).coordinationTables();
    final String name = "redis-outage-" + System.nanoTime();
    final TaskDefinition task = TaskDefinition.builder(name)
            .table("tb_order")
            .idColumn("order_id")
            .shardKeyColumn("user_id")
            .build();
    final List<ScanEngine> started = new ArrayList<>();
    final List<LettuceConnectionFactory> connections = new ArrayList<>();
    final RedisShardCoordinator observer = new RedisShardCoordinator(connect());
    /** Slow until the engines are back, so that rows are still pending across the whole outage. */
    volatile long handlerPauseNanos = Duration.ofMillis(20).toNanos();

    @BeforeAll
    static void redisCanBeStopped() {
        Assumptions.assumeTrue(
                TestServers.redis().isManaged(), "SCAN_TEST_REDIS_URL points at a Redis these tests cannot stop");
    }

    RedisOutageTests() {
        table.jdbc().execute("CREATE SEQUENCE IF NOT EXISTS effect_seq");
    }

    @AfterEach
    void restartRedisStopEnginesThenConnections() {
        server.start(); // no-op unless a failed test left it stopped
        started.forEach(ScanEngine::stop);
        connections.forEach(LettuceConnectionFactory::destroy);
    }

    @Test
    void enginesFenceThemselvesOffWhileRedisIsDownThenReclaimEveryShardAndLoseNothing() {
        table.insert(ROWS, 5_000, Instant.now().minusSeconds(5));
        ScanEngine a = startNode("node-a");
        ScanEngine b = startNode("node-b");
        await().atMost(Duration.ofSeconds(25))
                .untilAsserted(() -> assertThat(owners()).isEqualTo(Map.of("node-a", 32L, "node-b", 32L)));
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(a.task(name).ownedShards().size()
                                + b.task(name).ownedShards().size())
                        .isEqualTo(64));
        Map<Integer, Long> epochsBefore = new HashMap<>(a.task(name).ownedShards());
        epochsBefore.putAll(b.task(name).ownedShards());
        assertThat(epochsBefore).hasSize(64);

        long stoppedAt = System.nanoTime();
        server.stop();

        // self-fencing: each engine stops dispatching within the lease TTL of the stop
        await().atMost(TTL).untilAsserted(() -> {
            assertThat(a.task(name).ownedShards()).isEmpty();
            assertThat(b.task(name).ownedShards()).isEmpty();
        });
        assertThat(Duration.ofNanos(System.nanoTime() - stoppedAt)).isLessThanOrEqualTo(TTL);
        assertThat(a.task(name).coordinatorReachable()).isFalse();
        assertThat(b.task(name).coordinatorReachable()).isFalse();
        // a handler call that was running at the deadline may still finish; none may start after it
        await().pollDelay(Duration.ofSeconds(1)).until(() -> true);
        int effectsWhileFenced = table.effects();
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
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> assertThat(owners())
                .isEqualTo(Map.of("node-a", 32L, "node-b", 32L)));
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(a.task(name).ownedShards()).hasSize(32);
            assertThat(b.task(name).ownedShards()).hasSize(32);
        });
        assertThat(a.task(name).coordinatorReachable()).isTrue();
        assertThat(b.task(name).coordinatorReachable()).isTrue();
        handlerPauseNanos = Duration.ofMillis(1).toNanos();

        await().atMost(Duration.ofSeconds(40)).until(() -> table.count("status = 1") == ROWS);
        // nothing lost
        assertThat(table.count("status <> 1")).isZero();
        assertThat(table.effects()).isGreaterThanOrEqualTo(ROWS);
        assertThat(table.jdbc()
                        .queryForObject(
                                "SELECT COUNT(*) FROM tb_order o WHERE NOT EXISTS"
                                        + " (SELECT 1 FROM effect e WHERE e.order_id = o.order_id)",
                                Integer.class))
                .as("done rows without an effect")
                .isZero();
        // at most the rows in flight when the leases lapsed ran twice
        assertThat(table.duplicateEffects()).isLessThanOrEqualTo(2 * task.workers() * task.pageSize());
        // the fence of every shard holds the epoch its current owner was granted after the restart,
        // newer than the one before the outage: the engines' grants passed the database fence
        Map<Integer, Long> fences = fences();
        Map<Integer, Long> granted = new TreeMap<>();
        observer.leases(name).stream().filter(l -> l.owner() != null).forEach(l -> granted.put(l.shard(), l.epoch()));
        assertThat(fences).isEqualTo(granted).hasSize(64);
        fences.forEach(
                (shard, epoch) -> assertThat(epoch).as("shard %d", shard).isGreaterThan(epochsBefore.get(shard)));
        // in the order the effects were made, no shard's epoch ever goes back: once a newer owner
        // ran a shard, no stale owner did
        assertThat(table.jdbc()
                        .queryForObject(
                                "SELECT COUNT(*) FROM (SELECT epoch, LAG(epoch) OVER"
                                        + " (PARTITION BY mod(user_id, 64) ORDER BY seq) AS previous FROM effect) e"
                                        + " WHERE e.previous > e.epoch",
                                Integer.class))
                .isZero();
        // and every effect ran under an epoch some owner was granted: none newer than its shard's fence
        assertThat(table.jdbc()
                        .queryForObject(
                                "SELECT COUNT(*) FROM effect e JOIN scan_fence f ON f.task = ?"
                                        + " AND f.shard = mod(e.user_id, 64) WHERE e.epoch > f.epoch",
                                Integer.class,
                                name))
                .isZero();
    }

    private ScanEngine startNode(String node) {
        ScanEngine engine = engines.start(
                node,
                dataSource,
                new RedisShardCoordinator(connect()),
                new ScanEngine.ScanTask(task, effect(node)),
                ScanClock.system(),
                ScanListener.NONE,
                TTL,
                RENEW);
        started.add(engine);
        return engine;
    }

    private TaskHandler.PerRow effect(String node) {
        return (row, ctx) -> {
            long pause = handlerPauseNanos;
            if (pause > 0) {
                LockSupport.parkNanos(pause);
            }
            table.jdbc()
                    .update(
                            "INSERT INTO effect (order_id, user_id, node, epoch, seq)"
                                    + " VALUES (?, ?, ?, ?, nextval('effect_seq'))",
                            row.id(),
                            row.shardKey(),
                            node,
                            ctx.epoch());
            return null;
        };
    }

    private Map<String, Long> owners() {
        return observer.leases(name).stream()
                .filter(l -> l.owner() != null)
                .collect(Collectors.groupingBy(LeaseInfo::owner, Collectors.counting()));
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

    /** Connections with a short command timeout, so that calls fail fast while Redis is down. */
    private LettuceConnectionFactory connect() {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(server.host(), server.port()),
                LettuceClientConfiguration.builder()
                        .commandTimeout(Duration.ofMillis(500))
                        .build());
        factory.afterPropertiesSet();
        factory.start();
        connections.add(factory);
        return factory;
    }
}
