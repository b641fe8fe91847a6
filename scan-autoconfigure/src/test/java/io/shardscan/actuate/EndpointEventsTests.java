package io.shardscan.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardscan.core.CompositeScanListener;
import io.shardscan.core.EngineSettings;
import io.shardscan.core.InMemoryEndpointBans;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.task.EndpointRules;
import io.shardscan.core.task.OnExhausted;
import io.shardscan.core.task.Ordering;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.StoreServers;
import io.shardscan.testsupport.TestServers;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * What an operator sees of a receiver that refuses connections, on PostgreSQL with real HTTP stores:
 * one WARN per endpoint, listener callbacks, the trip and ban metrics, a health detail that keeps
 * the task UP, the ban in {@code /actuator/scan/{task}}, and the write action that lifts it.
 */
@ServerTests
class EndpointEventsTests {

    static final String TASK = "store-events";

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final StoreServers stores = new StoreServers(4);

    @RegisterExtension
    final CapturedLog log = new CapturedLog("io.shardscan.core.EndpointBlacklist");

    final DataSource dataSource = TestServers.postgresDatabase("endpoint_events");
    final OrderTable table = new OrderTable(dataSource).recreate(16, true).coordinationTables();

    @Test
    void aBannedStoreIsLoggedCountedShownAndLiftedByAnOperator() {
        table.insert(400, 40, Instant.now().minusSeconds(5)).withStores(4);
        stores.down(3);
        TaskDefinition task = TaskDefinition.builder(TASK)
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(16)
                .ordering(Ordering.NONE)
                .tiers(List.of(new Tier(0, 0, Duration.ofMillis(200)), new Tier(1, 1000, Duration.ofMillis(300))))
                .onExhausted(OnExhausted.KEEP_RETRYING)
                .endpoints(EndpointRules.of("store_id").withLevel2(2, Duration.ofMinutes(1), Duration.ofMinutes(10)))
                .build();
        List<String> events = new CopyOnWriteArrayList<>();
        ScanListener recorder = new ScanListener() {
            @Override
            public void endpointTripped(String t, String endpoint, String reason) {
                events.add("tripped " + endpoint);
            }

            @Override
            public void endpointBanned(String t, String endpoint, String reason) {
                events.add("banned " + endpoint);
            }

            @Override
            public void endpointLifted(String t, String endpoint) {
                events.add("lifted " + endpoint);
            }
        };
        AtomicReference<ScanEngine> engineRef = new AtomicReference<>();
        ScanMetrics metrics = new ScanMetrics(engineRef::get, t -> null);
        ScanEngine engine = new ScanEngine(
                List.of(new ScanEngine.ScanTask(task, (TaskHandler.PerRow) stores::push)),
                new JdbcTaskStore(dataSource),
                new JdbcShardCoordinator(dataSource),
                new EngineSettings(
                        "node-a", Engines.FAST_TTL, Engines.FAST_RENEW, Engines.FAST_TTL, Duration.ofSeconds(10)),
                ScanClock.system(),
                CompositeScanListener.of(List.of(metrics, recorder)),
                new InMemoryEndpointBans(ScanClock.system()));
        engineRef.set(engine);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        metrics.bindTo(registry);
        engines.start(engine);

        await().until(() -> !engine.task(TASK).bannedEndpoints().isEmpty());
        await().until(() -> table.count("status = 1") == 300);

        assertThat(events).contains("tripped 3", "banned 3");
        assertThat(log.warnings())
                .filteredOn(w -> w.contains("endpoint 3 tripped level 1"))
                .hasSize(1);
        assertThat(log.warnings())
                .filteredOn(w -> w.contains("endpoint 3 banned on every node"))
                .hasSize(1);
        assertThat(registry.get("scan.endpoint.trips")
                        .tags("task", TASK, "level", "1")
                        .counter()
                        .count())
                .isGreaterThanOrEqualTo(2);
        assertThat(registry.get("scan.endpoint.trips")
                        .tags("task", TASK, "level", "2")
                        .counter()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get("scan.endpoint.banned")
                        .tag("task", TASK)
                        .gauge()
                        .value())
                .isEqualTo(1);

        ScanHealthIndicator health = new ScanHealthIndicator(engine);
        Health reported = health.health(true);
        assertThat(reported.getStatus()).as("health %s", reported.getDetails()).isEqualTo(Status.UP);
        assertThat(details(reported)).containsEntry("bannedEndpoints", List.of("3"));

        ScanEndpoint endpoint = new ScanEndpoint(engine, new ScanBacklogs(engine, Duration.ofMinutes(1)), true);
        TaskDescriptor described = endpoint.task(TASK);
        assertThat(described.bannedEndpoints()).singleElement().satisfies(ban -> {
            assertThat(ban.endpoint()).isEqualTo("3");
            assertThat(ban.inForce()).isTrue();
            assertThat(ban.lastError()).contains("ConnectException");
            assertThat(ban.until()).isAfter(ban.since());
        });

        stores.up(3);
        ActionDescriptor lifted = endpoint.act(TASK, "lift-ban", "3", SecurityContext.NONE);
        assertThat(lifted.lifted()).isTrue();
        assertThat(lifted.requeued()).isNull();
        assertThat(events).contains("lifted 3");
        assertThat(endpoint.task(TASK).bannedEndpoints()).isEmpty();
        await().until(() -> table.count("status = 1") == 400);
        assertThat(stores.received(3)).hasSize(100);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> details(Health health) {
        return (Map<String, Object>) ((Map<String, Object>) health.getDetails().get("tasks")).get(TASK);
    }
}
