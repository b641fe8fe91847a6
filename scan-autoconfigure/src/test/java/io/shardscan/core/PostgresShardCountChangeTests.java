package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.actuate.ScanHealthIndicator;
import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestTime;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A rolling change of {@code shards} with the JDBC coordinator, on PostgreSQL. */
@ServerTests
class PostgresShardCountChangeTests extends ShardCountChangeContractTests {

    @Override
    ShardCoordinator coordinator() {
        return new JdbcShardCoordinator(dataSource);
    }

    // engine behaviour, the same with any coordinator: on this one only, for the suite's time

    @Test
    void unownedShardsCountsOnlyThisNodesShardsNeverBelowNone() {
        ScanEngine a = start("node-a", 8);
        await().untilAsserted(() -> assertThat(a.task(name).ownedShards()).hasSize(8));
        // a lease past this node's 8 shards, as a node of 16 that claimed before it saw node-a would hold
        // longer than the await below: a lease that lapsed would pass it whatever the count
        assertThat(coordinator().tryAcquire(name, 12, "node-x", Duration.ofMinutes(2)))
                .isPresent();
        await().untilAsserted(() -> {
            assertThat(a.task(name).leases()).extracting(LeaseInfo::shard).contains(12);
            assertThat(details(new ScanHealthIndicator(a).health(true))).containsEntry("unownedShards", 0L);
        });
    }

    @Test
    void nodesOfTwoCountsStartingAtOnceSettleOnOneCountAndFinishEveryRow() {
        table.insert(1, 2_000, 500, Instant.now().minusSeconds(5));
        ScanEngine a = start("node-a", 8);
        ScanEngine b = start("node-b", 12);

        // which count wins depends on who claimed first; that one count wins, on both nodes, does not
        await().untilAsserted(() -> {
            ScanEngine idle = a.task(name).shardCountConflict() != null ? a : b;
            ScanEngine busy = idle == a ? b : a;
            assertThat(busy.task(name).shardCountConflict()).isNull();
            assertThat(idle.task(name).shardCountConflict()).isNotNull();
            assertThat(idle.task(name).ownedShards()).isEmpty();
            assertThat(busy.task(name).ownedShards())
                    .hasSize(busy.task(name).definition().shards());
        });
        table.insert(10_001, 2_000, 500, Instant.now().minusSeconds(5));
        await().atMost(TestTime.scaled(Duration.ofSeconds(60))).until(() -> table.count("status = 1") == 4_000);
        assertThat(table.count("status <> 1")).isZero();
    }
}
