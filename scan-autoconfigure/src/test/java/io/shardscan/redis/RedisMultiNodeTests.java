package io.shardscan.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.ScanEngine;
import io.shardscan.core.spi.Member;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Several engines in one JVM on one PostgreSQL database, coordinated through the tests' Redis. Each
 * engine has its own {@link RedisShardCoordinator} on its own connections, as separate nodes would.
 */
@ServerTests
class RedisMultiNodeTests {

    /** Handler pause while the test waits for the split: keeps rows pending until it is observed. */
    static final long SLOW = Duration.ofMillis(20).toNanos();
    /** Handler pause afterwards: about 1 ms of simulated work per row. */
    static final long FAST = Duration.ofMillis(1).toNanos();

    @RegisterExtension
    final Engines engines = new Engines();

    final RedisNodes cluster =
            new RedisNodes(engines, "redis_multi_node", Duration.ofSeconds(2), Duration.ofNanos(SLOW));
    final OrderTable table = cluster.table;
    final String name = cluster.name;

    @AfterEach
    void stopEnginesThenConnections() {
        cluster.close(true);
    }

    @Test
    void threeNodesProcessThirtyThousandRowsExactlyOnce() {
        table.insert(30_000, 7_000, Instant.now().minusSeconds(5));
        List<ScanEngine> nodes = List.of(cluster.start("node-a"), cluster.start("node-b"), cluster.start("node-c"));

        awaitSplit(List.of("node-a", "node-b", "node-c"), 21L, 21L, 22L);
        assertThat(table.count("status = 0"))
                .as("rows still pending when the split reached 21/21/22")
                .isPositive();
        await().untilAsserted(() -> assertThat(nodes.stream()
                        .map(e -> e.task(name).ownedShards().size())
                        .toList())
                .containsExactlyInAnyOrder(21, 21, 22));

        cluster.handlerPauseNanos = FAST;
        await().atMost(TestTime.scaled(Duration.ofSeconds(40))).until(() -> table.count("status = 1") == 30_000);
        assertThat(table.count("status <> 1")).isZero();
        assertThat(table.effects()).isEqualTo(30_000);
        assertThat(table.duplicateEffects()).isZero();
        assertThat(table.jdbc().queryForList("SELECT DISTINCT node FROM effect", String.class))
                .containsExactlyInAnyOrder("node-a", "node-b", "node-c");
        assertThat(cluster.epochsGoingBackwards()).isZero();
    }

    @Test
    void aFourthNodeJoiningMovesAtMostSeventeenShards() {
        table.insert(300, 100, Instant.now().minusSeconds(5));
        cluster.handlerPauseNanos = 0;
        cluster.start("node-a");
        cluster.start("node-b");
        cluster.start("node-c");
        awaitSplit(List.of("node-a", "node-b", "node-c"), 21L, 21L, 22L);
        Map<Integer, String> before = cluster.ownerByShard();
        assertThat(before).hasSize(64);

        ScanEngine d = cluster.start("node-d");
        awaitSplit(List.of("node-a", "node-b", "node-c", "node-d"), 16L, 16L, 16L, 16L);
        Map<Integer, String> after = cluster.ownerByShard();
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
        // usable once the database issued its fence epochs, right after the coordinator's grants
        await().untilAsserted(() -> assertThat(d.task(name).ownedShards()).hasSize(16));
        await().until(() -> table.count("status = 1") == 300);
        assertThat(table.duplicateEffects()).isZero();
    }

    @Test
    void aNodeLeavingGracefullyHandsOverWithoutDuplicates() {
        table.insert(20_000, 5_000, Instant.now().minusSeconds(5));
        ScanEngine a = cluster.start("node-a");
        ScanEngine b = cluster.start("node-b");
        ScanEngine c = cluster.start("node-c");
        awaitSplit(List.of("node-a", "node-b", "node-c"), 21L, 21L, 22L);
        await().until(() ->
                table.jdbc().queryForObject("SELECT COUNT(*) FROM effect WHERE node = 'node-c'", Integer.class) > 0);

        c.stop();
        int pendingAfterStop = table.count("status = 0");
        assertThat(pendingAfterStop).as("node-c left mid-run").isPositive();
        assertThat(c.task(name).ownedShards()).isEmpty();
        assertThat(cluster.observer().leases(name)).noneMatch(l -> "node-c".equals(l.owner()));
        cluster.handlerPauseNanos = FAST;

        awaitSplit(List.of("node-a", "node-b"), 32L, 32L);
        await().atMost(TestTime.scaled(Duration.ofSeconds(40))).until(() -> table.count("status = 1") == 20_000);
        assertThat(table.count("status <> 1")).isZero();
        assertThat(table.effects()).isEqualTo(20_000);
        assertThat(table.duplicateEffects()).isZero();
        assertThat(cluster.epochsGoingBackwards()).isZero();
        assertThat(a.task(name).ownedShards()).hasSize(32);
        assertThat(b.task(name).ownedShards()).hasSize(32);
        assertThat(a.task(name).members()).extracting(Member::node).containsExactly("node-a", "node-b");
    }

    /** Waits until exactly {@code nodes} hold live leases, as many as {@code counts} in some order. */
    private void awaitSplit(List<String> nodes, Long... counts) {
        await().untilAsserted(() -> {
            Map<String, Long> owners = cluster.owners();
            assertThat(owners).containsOnlyKeys(nodes);
            assertThat(owners.values()).as("shards per owner %s", owners).containsExactlyInAnyOrder(counts);
        });
    }
}
