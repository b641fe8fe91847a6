package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.spi.Member;
import io.shardscan.core.spi.NodeCounters;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.testsupport.CountingDataSource;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What a settled node's lease tick costs the database with JDBC leases: the heartbeat, the
 * renewal of every held lease and the reads of members and leases, counted on the client side.
 */
@ServerTests
class JdbcCoordinatorIdleStatementsTests {

    private static final Duration TTL = Duration.ofSeconds(30);

    private final CountingDataSource counting = new CountingDataSource(TestServers.h2("idle_coordinator"));
    private final JdbcShardCoordinator coordinator = coordinator();
    private final String task = "t" + System.nanoTime();

    private JdbcShardCoordinator coordinator() {
        new OrderTable(counting.target()).coordinationTables();
        return new JdbcShardCoordinator(counting.dataSource());
    }

    @Test
    void aHeartbeatWithEveryMemberLiveIsAnUpdateAndARead() {
        coordinator.heartbeat(task, "node-a", TTL, new NodeCounters(1, 0, 0, 0));
        coordinator.heartbeat(task, "node-b", TTL, new NodeCounters(1, 0, 0, 0));
        long before = counting.total();
        assertThat(coordinator.heartbeat(task, "node-a", TTL, new NodeCounters(2, 0, 0, 0)))
                .extracting(Member::node)
                .containsExactly("node-a", "node-b");
        assertThat(counting.total() - before)
                .as("statements of an idle heartbeat: %s", counting.byKind())
                .isEqualTo(2);
    }

    @Test
    void renewingEveryHeldLeaseIsOneStatement() {
        Map<Integer, Long> held = new HashMap<>();
        for (int shard = 0; shard < 64; shard++) {
            held.put(
                    shard,
                    coordinator
                            .tryAcquire(task, shard, "node-a", TTL)
                            .orElseThrow()
                            .epoch());
        }
        long before = counting.total();
        assertThat(coordinator.renew(task, "node-a", held, TTL)).containsExactlyInAnyOrderElementsOf(held.keySet());
        assertThat(counting.total() - before)
                .as("statements of a renewal: %s", counting.byKind())
                .isEqualTo(1);
    }

    /**
     * Without PostgreSQL's data-modifying {@code WITH} a settled tick is three statements: the
     * heartbeat, the renewal and one read of members and leases.
     */
    @Test
    void aSettledTickElsewhereIsThreeStatements() {
        assertSettledTick(coordinator, counting, 3);
    }

    /**
     * PostgreSQL answers a whole tick (heartbeat, renewal, members, leases) in one statement, which
     * is what lets an idle node stay under one statement per second.
     */
    @Test
    void aSettledTickOnPostgresqlIsOneStatement() {
        CountingDataSource postgres = new CountingDataSource(TestServers.postgresDatabase("idle_coordinator"));
        new OrderTable(postgres.target()).coordinationTables();
        assertSettledTick(new JdbcShardCoordinator(postgres.dataSource()), postgres, 1);
    }

    /**
     * On PostgreSQL the node's renewals of four tasks of 64 shards and the ticks of all four are one
     * statement, on the connection the renewals keep; elsewhere the renewals alone, and no tick.
     */
    @Test
    void theRenewalsAndTheTicksOfFourTasksOnPostgresqlAreOneStatement() {
        CountingDataSource postgres = new CountingDataSource(TestServers.postgresDatabase("idle_coordinator"));
        new OrderTable(postgres.target()).coordinationTables();
        List<Integer> fourTasks = List.of(64, 64, 64, 64);
        assertSettledNodeTick(new JdbcShardCoordinator(postgres.dataSource()), postgres, fourTasks, 1, 4);
        assertSettledNodeTick(coordinator, counting, fourTasks, 1, 0);
    }

    /**
     * Past 500 leases, a statement per 500 leases, each with the ticks of its tasks; a task of more
     * than 500 leases is renewed on its own (two statements for 550) and ticks on its own. Before, a
     * node of over 500 leases answered no tick at all: 200 tasks of 8 shards each ticked on its own.
     */
    @Test
    void pastFiveHundredLeasesTheTicksStillRideAlongOneStatementPerFiveHundredLeases() {
        CountingDataSource postgres = new CountingDataSource(TestServers.postgresDatabase("idle_coordinator"));
        new OrderTable(postgres.target()).coordinationTables();
        // node-a holds 128 of each of the first four (512: two statements) and 550 of the fifth
        assertSettledNodeTick(
                new JdbcShardCoordinator(postgres.dataSource()), postgres, List.of(256, 256, 256, 256, 1100), 4, 4);
    }

    /**
     * node-a and node-b hold every other shard of tasks of {@code shards} shards each; node-a's renewals
     * and ticks cost {@code statements} and answer {@code ticks}.
     */
    private void assertSettledNodeTick(
            JdbcShardCoordinator coordinator,
            CountingDataSource counted,
            List<Integer> shards,
            int statements,
            int ticks) {
        Map<String, Map<Integer, Long>> held = new HashMap<>();
        Map<String, NodeCounters> counters = new HashMap<>();
        for (int t = 0; t < shards.size(); t++) {
            String name = task + "-" + t;
            coordinator.heartbeat(name, "node-a", TTL);
            coordinator.heartbeat(name, "node-b", TTL);
            counters.put(name, new NodeCounters(t, 0, 0, 0));
            for (int shard = 0; shard < shards.get(t); shard++) {
                String owner = shard % 2 == 0 ? "node-a" : "node-b";
                long epoch = coordinator
                        .tryAcquire(name, shard, owner, TTL)
                        .orElseThrow()
                        .epoch();
                if (owner.equals("node-a")) {
                    held.computeIfAbsent(name, n -> new HashMap<>()).put(shard, epoch);
                }
            }
        }
        long before = counted.total();
        ShardCoordinator.NodeTick answer = coordinator.renewAllAndTick("node-a", held, TTL, TTL, counters);
        assertThat(counted.total() - before)
                .as("statements of a settled node's renewals: %s", counted.byKind())
                .isEqualTo(statements);
        held.forEach((name, leases) ->
                assertThat(answer.renewed().get(name)).containsExactlyInAnyOrderElementsOf(leases.keySet()));
        assertThat(answer.ticks()).hasSize(ticks);
        answer.ticks().forEach((name, tick) -> {
            assertThat(tick.members()).extracting(Member::node).containsExactly("node-a", "node-b");
            assertThat(tick.renewed())
                    .containsExactlyInAnyOrderElementsOf(held.get(name).keySet());
            assertThat(tick.leases()).hasSize(shards.get(Integer.parseInt(name.substring(name.lastIndexOf('-') + 1))));
        });
    }

    /** node-a and node-b hold every other shard of 64; node-a's second tick costs {@code statements}. */
    private void assertSettledTick(JdbcShardCoordinator coordinator, CountingDataSource counted, int statements) {
        coordinator.heartbeat(task, "node-b", TTL);
        Map<Integer, Long> held = new HashMap<>();
        for (int shard = 0; shard < 64; shard++) {
            String owner = shard % 2 == 0 ? "node-a" : "node-b";
            long epoch = coordinator
                    .tryAcquire(task, shard, owner, TTL)
                    .orElseThrow()
                    .epoch();
            if (owner.equals("node-a")) {
                held.put(shard, epoch);
            }
        }
        NodeCounters counters = new NodeCounters(1, 0, 0, 0);
        coordinator.tick(task, "node-a", TTL, counters, held, TTL);
        long before = counted.total();
        ShardCoordinator.Tick tick = coordinator.tick(task, "node-a", TTL, counters, held, TTL);
        assertThat(counted.total() - before)
                .as("statements of a settled tick: %s", counted.byKind())
                .isEqualTo(statements);
        assertThat(tick.members()).extracting(Member::node).containsExactly("node-a", "node-b");
        assertThat(tick.renewed()).containsExactlyInAnyOrderElementsOf(held.keySet());
        assertThat(tick.leases()).hasSize(64).allSatisfy(lease -> assertThat(lease.owner())
                .isEqualTo(lease.shard() % 2 == 0 ? "node-a" : "node-b"));
    }

    @Test
    void aRefusedLeaseIsStillLeftOutOfTheRenewal() {
        long kept = coordinator.tryAcquire(task, 0, "node-a", TTL).orElseThrow().epoch();
        long lost = coordinator.tryAcquire(task, 1, "node-a", TTL).orElseThrow().epoch();
        coordinator.release(task, 1, "node-a", lost);
        coordinator.tryAcquire(task, 1, "node-b", TTL).orElseThrow();
        assertThat(coordinator.renew(task, "node-a", Map.of(0, kept, 1, lost), TTL))
                .containsExactly(0);
    }

    @Test
    void aSilentMemberIsLeftOutAndSweptFromTheTable() {
        coordinator.heartbeat(task, "node-b", TTL);
        Duration short_ = Duration.ofMillis(300);
        await().pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> assertThat(coordinator.heartbeat(task, "node-a", short_))
                        .extracting(Member::node)
                        .containsExactly("node-a"));
        assertThat(new JdbcTemplate(counting.target())
                        .queryForObject(
                                "SELECT COUNT(*) FROM scan_member WHERE task = ? AND node = 'node-b'",
                                Integer.class,
                                task))
                .isZero();
    }
}
