package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.task.EndpointRules;
import io.shardscan.core.task.OnExhausted;
import io.shardscan.core.task.Ordering;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.StoreServers;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Transfer (lossy) to real HTTP stores on PostgreSQL: a down store's rows are given up, with why. */
@ServerTests
class EndpointTransferTests {

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final StoreServers stores = new StoreServers(5);

    final DataSource dataSource = TestServers.postgresDatabase("endpoint_transfer");
    final OrderTable table = new OrderTable(dataSource).recreate(16, true).coordinationTables();

    @Test
    void aDownStoresRowsEndDeadAfterTheConfiguredTriesWithTheReason() {
        table.insert(500, 50, Instant.now().minusSeconds(5)).withStores(5);
        stores.down(1);
        TaskDefinition task = transfer("store-transfer", 1_000_000, Duration.ofMinutes(5));
        engines.start("node-a", dataSource, task, (TaskHandler.PerRow) stores::push);

        await().atMost(TestTime.scaled(Duration.ofSeconds(60))).until(() -> table.count("status = 2") == 100);
        assertThat(table.count("status = 2 AND store_id = 1")).isEqualTo(100);
        assertThat(table.count("status = 2 AND retry_count = 3")).isEqualTo(100);
        assertThat(table.jdbc().queryForList("SELECT DISTINCT last_error FROM tb_order WHERE status = 2", String.class))
                .allSatisfy(error -> assertThat(error)
                        .containsAnyOf("ConnectException", "endpoint 1 is unavailable (level 1 blacklist)"));
        await().until(() -> table.count("status = 1") == 400);
        // one call per pass at most while it trips level 1 each time, not one per row and try
        assertThat(stores.calls(1)).isLessThan(100);
        System.out.printf("transfer: 100 rows dead after %d calls to the down store%n", stores.calls(1));
    }

    @Test
    void aBannedStoresRowsAreCountedAsFailedAttemptsAndEndDead() {
        table.insert(500, 50, Instant.now().minusSeconds(5)).withStores(5);
        stores.down(1);
        // the first level-1 trip bans store 1 everywhere for longer than the test: its rows are never
        // called again, and transfer counts each pass over them as a failed attempt (seed 003)
        TaskDefinition task = transfer("store-transfer-ban", 1, Duration.ofHours(1));
        engines.start("node-a", dataSource, task, (TaskHandler.PerRow) stores::push);

        await().atMost(TestTime.scaled(Duration.ofSeconds(60))).until(() -> table.count("status = 2") == 100);
        assertThat(table.count("status = 2 AND store_id = 1 AND retry_count = 3"))
                .isEqualTo(100);
        assertThat(table.count("status = 2 AND last_error LIKE '%level 2 blacklist%'"))
                .as("rows given up while their store was banned, not only before the ban")
                .isPositive();
        await().until(() -> table.count("status = 1") == 400);
        assertThat(stores.calls(1)).isLessThan(100);
    }

    /**
     * What mode: transfer sets: one try a pass, dead after the last tier (here 3 tries in all); level 1
     * after one endpoint-down failure, level 2 after {@code trips} trips within 5 minutes for {@code ban}.
     */
    private static TaskDefinition transfer(String name, int trips, Duration ban) {
        return TaskDefinition.builder(name)
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(16)
                .ordering(Ordering.NONE)
                .tiers(List.of(new Tier(0, 0, Duration.ofMillis(200)), new Tier(1, 2, Duration.ofMillis(200))))
                .onExhausted(OnExhausted.DEAD)
                .handlerTimeout(Duration.ofSeconds(10))
                .endpoints(
                        EndpointRules.of("store_id").withLevel1After(1).withLevel2(trips, Duration.ofMinutes(5), ban))
                .build();
    }
}
