package io.shardscan.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.LeaseInfo;
import io.shardscan.core.Member;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.TaskDefinition;
import io.shardscan.core.TaskHandler;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Several engines in one JVM on one PostgreSQL database, coordinated through the tests' Redis. Each
 * engine has its own {@link RedisShardCoordinator} on its own connections, as separate nodes would.
 */
class RedisMultiNodeTests {

    static final Duration TTL = Duration.ofSeconds(6);
    static final Duration RENEW = Duration.ofSeconds(2);
    /** Handler pause while the test waits for the split: keeps rows pending until it is observed. */
    static final long SLOW = Duration.ofMillis(20).toNanos();
    /** Handler pause afterwards: about 1 ms of simulated work per row. */
    static final long FAST = Duration.ofMillis(1).toNanos();

    @RegisterExtension
    final Engines engines = new Engines();

    final DataSource dataSource = TestServers.postgresDatabase("redis_multi_node");
    final OrderTable table = new OrderTable(dataSource).recreate(64, true).coordinationTables();
    /** A task name of its own per test: the Redis keys of earlier tests (members, epochs) do not leak in. */
    final String name = "redis-multi-" + System.nanoTime();

    final TaskDefinition task = TaskDefinition.builder(name)
            .table("tb_order")
            .idColumn("order_id")
            .shardKeyColumn("user_id")
            .build();
    final List<ScanEngine> started = new ArrayList<>();
    final List<LettuceConnectionFactory> connections = new ArrayList<>();
    final RedisShardCoordinator observer = new RedisShardCoordinator(connect());
    volatile long handlerPauseNanos = SLOW;

    RedisMultiNodeTests() {
        table.jdbc().execute("CREATE SEQUENCE IF NOT EXISTS effect_seq");
    }

    @AfterEach
    void stopEnginesThenConnections() {
        started.forEach(ScanEngine::stop);
        new StringRedisTemplate(connections.get(0))
                .delete(new StringRedisTemplate(connections.get(0)).keys("scan:{" + name + "}:*"));
        connections.forEach(LettuceConnectionFactory::destroy);
    }

    @Test
    void threeNodesProcessThirtyThousandRowsExactlyOnce() {
        table.insert(30_000, 7_000, Instant.now().minusSeconds(5));
        List<ScanEngine> nodes = List.of(startNode("node-a"), startNode("node-b"), startNode("node-c"));

        awaitSplit(List.of("node-a", "node-b", "node-c"), 21L, 21L, 22L);
        assertThat(table.count("status = 0"))
                .as("rows still pending when the split reached 21/21/22")
                .isPositive();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(nodes.stream()
                        .map(e -> e.task(name).ownedShards().size())
                        .toList())
                .containsExactlyInAnyOrder(21, 21, 22));

        handlerPauseNanos = FAST;
        await().atMost(Duration.ofSeconds(40)).until(() -> table.count("status = 1") == 30_000);
        assertThat(table.count("status <> 1")).isZero();
        assertThat(table.effects()).isEqualTo(30_000);
        assertThat(table.duplicateEffects()).isZero();
        assertThat(table.jdbc().queryForList("SELECT DISTINCT node FROM effect", String.class))
                .containsExactlyInAnyOrder("node-a", "node-b", "node-c");
        assertThat(epochsGoingBackwards()).isZero();
    }

    @Test
    void aFourthNodeJoiningMovesAtMostSeventeenShards() {
        table.insert(300, 100, Instant.now().minusSeconds(5));
        handlerPauseNanos = 0;
        startNode("node-a");
        startNode("node-b");
        startNode("node-c");
        awaitSplit(List.of("node-a", "node-b", "node-c"), 21L, 21L, 22L);
        Map<Integer, String> before = ownerByShard();
        assertThat(before).hasSize(64);

        ScanEngine d = startNode("node-d");
        awaitSplit(List.of("node-a", "node-b", "node-c", "node-d"), 16L, 16L, 16L, 16L);
        Map<Integer, String> after = ownerByShard();
        assertThat(after).hasSize(64);

        Map<Integer, String> moved = new TreeMap<>();
        after.forEach((shard, owner) -> {
            if (!owner.equals(before.get(shard))) {
                moved.put(shard, before.get(shard) + " -> " + owner);
            }
        });
        assertThat(moved.size()).as("shards that changed owner: %s", moved).isLessThanOrEqualTo(17);
        assertThat(moved.values())
                .as("a join moves shards to the new node only, never between the old ones")
                .allMatch(move -> move.endsWith("-> node-d"));
        assertThat(d.task(name).ownedShards()).hasSize(16);
        await().atMost(Duration.ofSeconds(20)).until(() -> table.count("status = 1") == 300);
        assertThat(table.duplicateEffects()).isZero();
    }

    @Test
    void aNodeLeavingGracefullyHandsOverWithoutDuplicates() {
        table.insert(20_000, 5_000, Instant.now().minusSeconds(5));
        ScanEngine a = startNode("node-a");
        ScanEngine b = startNode("node-b");
        ScanEngine c = startNode("node-c");
        awaitSplit(List.of("node-a", "node-b", "node-c"), 21L, 21L, 22L);
        await().atMost(Duration.ofSeconds(10))
                .until(() ->
                        table.jdbc().queryForObject("SELECT COUNT(*) FROM effect WHERE node = 'node-c'", Integer.class)
                                > 0);

        c.stop();
        int pendingAfterStop = table.count("status = 0");
        assertThat(pendingAfterStop).as("node-c left mid-run").isPositive();
        assertThat(c.task(name).ownedShards()).isEmpty();
        assertThat(observer.leases(name)).noneMatch(l -> "node-c".equals(l.owner()));
        handlerPauseNanos = FAST;

        awaitSplit(List.of("node-a", "node-b"), 32L, 32L);
        await().atMost(Duration.ofSeconds(40)).until(() -> table.count("status = 1") == 20_000);
        assertThat(table.count("status <> 1")).isZero();
        assertThat(table.effects()).isEqualTo(20_000);
        assertThat(table.duplicateEffects()).isZero();
        assertThat(epochsGoingBackwards()).isZero();
        assertThat(a.task(name).ownedShards()).hasSize(32);
        assertThat(b.task(name).ownedShards()).hasSize(32);
        assertThat(a.task(name).members()).extracting(Member::node).containsExactly("node-a", "node-b");
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

    /** Simulates some work, then records the row's effect with the node, the lease epoch and a global sequence. */
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

    /**
     * Effects of a shard, in the order they were made, whose epoch is lower than that of an earlier
     * effect of the same shard: a handler that ran after a newer owner of its shard had started.
     */
    private int epochsGoingBackwards() {
        return table.jdbc()
                .queryForObject(
                        "SELECT COUNT(*) FROM (SELECT epoch, LAG(epoch) OVER"
                                + " (PARTITION BY mod(user_id, 64) ORDER BY seq) AS previous FROM effect) e"
                                + " WHERE e.previous > e.epoch",
                        Integer.class);
    }

    /** Waits until exactly {@code nodes} hold live leases, as many as {@code counts} in some order. */
    private void awaitSplit(List<String> nodes, Long... counts) {
        await().atMost(Duration.ofSeconds(25)).untilAsserted(() -> {
            Map<String, Long> owners = owners();
            assertThat(owners).containsOnlyKeys(nodes);
            assertThat(owners.values()).as("shards per owner %s", owners).containsExactlyInAnyOrder(counts);
        });
    }

    /** Live leases per owner, as the coordinator sees them. */
    private Map<String, Long> owners() {
        return observer.leases(name).stream()
                .filter(l -> l.owner() != null)
                .collect(Collectors.groupingBy(LeaseInfo::owner, Collectors.counting()));
    }

    private Map<Integer, String> ownerByShard() {
        Map<Integer, String> owners = new TreeMap<>();
        observer.leases(name).stream().filter(l -> l.owner() != null).forEach(l -> owners.put(l.shard(), l.owner()));
        return owners;
    }

    private LettuceConnectionFactory connect() {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(
                        TestServers.redis().host(), TestServers.redis().port()),
                LettuceClientConfiguration.builder()
                        .commandTimeout(Duration.ofSeconds(2))
                        .build());
        factory.afterPropertiesSet();
        factory.start();
        connections.add(factory);
        return factory;
    }
}
