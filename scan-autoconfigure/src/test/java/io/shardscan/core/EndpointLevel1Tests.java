package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.task.EndpointDownClassifier;
import io.shardscan.core.task.EndpointRules;
import io.shardscan.core.task.EndpointUnavailableException;
import io.shardscan.core.task.OnExhausted;
import io.shardscan.core.task.Ordering;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.RoundEvents;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.StoreServers;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Level 1 of the endpoint blacklist on PostgreSQL with real HTTP stores: a store that refuses
 * connections is skipped on the node for the rest of a pass once it failed {@code level1.after}
 * tries in a row, so its rows no longer cost a call each.
 */
@ServerTests
class EndpointLevel1Tests {

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final StoreServers stores = new StoreServers(5);

    final DataSource dataSource = TestServers.postgresDatabase("endpoint_level1");
    final OrderTable table = new OrderTable(dataSource).recreate(16, true).coordinationTables();

    private TaskDefinition.Builder sync() {
        return TaskDefinition.builder("store-sync")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(16)
                .ordering(Ordering.NONE)
                .tiers(List.of(new Tier(0, 0, Duration.ofMillis(500)), new Tier(1, 1000, Duration.ofMillis(500))))
                .onExhausted(OnExhausted.KEEP_RETRYING);
    }

    @Test
    void refusedUnknownOrTimedOutCallsAreTheEndpointsFaultOtherFailuresAreNot() {
        // a receiver that hangs until the client's timeout is as down as one that refuses connections
        assertThat(EndpointDownClassifier.DEFAULT.endpointDown(new java.net.ConnectException("Connection refused")))
                .isTrue();
        assertThat(EndpointDownClassifier.DEFAULT.endpointDown(
                        new java.net.http.HttpTimeoutException("request timed out")))
                .isTrue();
        assertThat(EndpointDownClassifier.DEFAULT.endpointDown(
                        new java.net.http.HttpConnectTimeoutException("connect timed out")))
                .isTrue();
        assertThat(EndpointDownClassifier.DEFAULT.endpointDown(
                        new java.io.UncheckedIOException(new java.net.SocketTimeoutException("Read timed out"))))
                .isTrue();
        assertThat(EndpointDownClassifier.DEFAULT.endpointDown(
                        new IllegalStateException("push failed", new java.net.UnknownHostException("store-3"))))
                .isTrue();
        assertThat(EndpointDownClassifier.DEFAULT.endpointDown(new EndpointUnavailableException("store answered 503")))
                .isTrue();
        // the row's fault, or not known to be the receiver's: wrap it in EndpointUnavailableException
        assertThat(EndpointDownClassifier.DEFAULT.endpointDown(new java.io.IOException("Connection reset")))
                .isFalse();
        assertThat(EndpointDownClassifier.DEFAULT.endpointDown(new IllegalArgumentException("bad payload")))
                .isFalse();
    }

    @Test
    void aStoreThatRefusesConnectionsIsSkippedForTheRestOfThePass() {
        table.insert(1000, 100, Instant.now().minusSeconds(5)).withStores(5);
        stores.down(3);
        // level 2 out of reach: only level 1 acts here
        TaskDefinition task = sync().endpoints(EndpointRules.of("store_id")
                        .withLevel1After(2)
                        .withLevel2(1_000_000, Duration.ofMinutes(5), Duration.ofMinutes(5)))
                .build();
        RoundEvents rounds = new RoundEvents();
        engines.start(
                "node-a",
                dataSource,
                task,
                (TaskHandler.PerRow) stores::push,
                ScanClock.system(),
                rounds,
                Engines.FAST_TTL,
                Engines.FAST_RENEW);

        await().atMost(TestTime.scaled(Duration.ofSeconds(60))).until(() -> table.count("status = 1") == 800);
        // four more passes: as many rounds as four over every shard, most meeting store 3's rows
        long passes = 4;
        long mark = rounds.ended();
        await().until(() -> rounds.endedSince(mark, passes * 16));

        for (int store : List.of(0, 1, 2, 4)) {
            Set<Long> expected = new HashSet<>(
                    table.jdbc().queryForList("SELECT order_id FROM tb_order WHERE store_id = ?", Long.class, store));
            assertThat(stores.received(store)).as("store %s", store).isEqualTo(expected);
        }
        // without level 1 the first pass alone calls each of its 200 rows twice
        assertThat(stores.calls(3)).isBetween(2L, 120L);
        // sync: rows not called stay pending untouched, only the rows that tripped it count a failure
        assertThat(table.count("store_id = 3 AND status = 0")).isEqualTo(200);
        assertThat(table.count("store_id = 3 AND retry_count = 0")).isGreaterThan(100);
        System.out.printf(
                "level 1: %d calls to the refusing store with 200 rows, %d of them never tried%n",
                stores.calls(3), table.count("store_id = 3 AND retry_count = 0"));
    }

    @Test
    void aRowIsTriedAgainAtOnceWhileItsEndpointHasNotTripped() {
        table.insert(20, 10, Instant.now().minusSeconds(5)).withStores(5);
        stores.down(2);
        TaskDefinition task = sync().endpoints(EndpointRules.of("store_id")
                        .withLevel1After(3)
                        .withLevel2(1_000_000, Duration.ofMinutes(5), Duration.ofMinutes(5)))
                .workers(1)
                // a pass of 3 s: what the first pass did is read well before the second
                .tiers(List.of(new Tier(0, 0, Duration.ofSeconds(3)), new Tier(1, 1000, Duration.ofSeconds(3))))
                .build();
        engines.start("node-a", dataSource, task, (TaskHandler.PerRow) stores::push);
        await().until(() -> table.count("store_id = 2 AND retry_count > 0") >= 1);
        // three tries of the first row, then the endpoint trips: one failure written, the store's
        // other three rows not called in this pass
        assertThat(table.count("store_id = 2 AND retry_count > 0")).isEqualTo(1);
        assertThat(table.jdbc()
                        .queryForObject("SELECT MAX(retry_count) FROM tb_order WHERE store_id = 2", Integer.class))
                .isEqualTo(1);
        assertThat(stores.calls(2)).isEqualTo(3);
        assertThat(table.jdbc()
                        .queryForObject(
                                "SELECT last_error FROM tb_order WHERE store_id = 2 AND retry_count > 0"
                                        + " ORDER BY order_id LIMIT 1",
                                String.class))
                .contains("ConnectException");
    }
}
