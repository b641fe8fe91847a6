package io.shardscan.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.shardscan.core.Backlog;
import io.shardscan.core.CompositeScanListener;
import io.shardscan.core.EngineSettings;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.SettableScanClock;
import io.shardscan.core.task.Ordering;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The meters of a real engine on H2, checked against what the engine wrote to the table. */
class ScanMetricsTests {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    static final int ROWS = 300;

    final DataSource dataSource = TestServers.h2("metrics");
    final AtomicInteger connections = new AtomicInteger();
    final MeterRegistry registry = new SimpleMeterRegistry();
    final AtomicReference<Backlog> backlog = new AtomicReference<>();
    OrderTable table;
    ScanEngine engine;

    @BeforeEach
    void setUp() {
        table = new OrderTable(dataSource).recreate(8, true).coordinationTables();
        table.insert(ROWS, 37, T0);
    }

    /** Every tenth row throws, every tenth + 1 is given up, every tenth + 2 is skipped, the rest are done. */
    void startEngine() {
        TaskDefinition task = TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(8)
                .pageSize(40)
                .workers(4)
                .tiers(List.of(Tier.of("0", Duration.ofSeconds(1)), Tier.of("1-2", Duration.ofSeconds(30))))
                // every row fails or not on its own; none waits behind another
                .ordering(Ordering.NONE)
                .build();
        TaskHandler.PerRow handler = (row, ctx) -> switch ((int) (row.id() % 10)) {
            case 0 -> throw new IllegalStateException("gateway refused order " + row.id());
            case 1 -> Outcome.dead("bad phone number");
            case 2 -> Outcome.skip();
            default -> Outcome.done();
        };
        ScanMetrics metrics = new ScanMetrics(() -> engine, name -> backlog.get());
        DataSource counted = counting(dataSource);
        engine = new ScanEngine(
                List.of(new ScanEngine.ScanTask(task, handler)),
                new JdbcTaskStore(counted),
                new JdbcShardCoordinator(counted),
                new EngineSettings(
                        "node-1", Engines.FAST_TTL, Engines.FAST_RENEW, Engines.FAST_TTL, Duration.ofSeconds(10)),
                new SettableScanClock(T0.plusSeconds(1)),
                new CompositeScanListener(List.of(metrics, new ScanObservations(observations(registry), true))));
        // bound before the start, as in an application, where the lifecycle starts the engine last
        metrics.bindTo(registry);
        engine.start();
    }

    @AfterEach
    void stopEngine() {
        if (engine != null) {
            engine.stop();
        }
    }

    @Test
    void rowCountersMatchWhatTheEngineWrote() {
        startEngine();
        await().until(() -> table.count("status = 1") == ROWS * 7 / 10
                && table.count("status = 2") == ROWS / 10
                && table.count("retry_count = 1") == ROWS / 10);
        await().untilAsserted(() -> {
            assertThat(rows("done")).isEqualTo(table.count("status = 1"));
            assertThat(rows("dead")).isEqualTo(table.count("status = 2"));
            assertThat(rows("failed")).isEqualTo(table.count("retry_count = 1"));
            assertThat(rows("skipped")).isGreaterThanOrEqualTo(ROWS / 10);
        });
        assertThat(registry.get("scan.rows")
                        .tags("task", "orders", "tier", "1-2", "outcome", "done")
                        .counter()
                        .count())
                .isZero();
        // the observations' timers
        assertThat(registry.get("scan.handler")
                        .tags("task", "orders", "tier", "0", "outcome", "done")
                        .timer()
                        .count())
                .isEqualTo(ROWS * 7 / 10);
        assertThat(registry.get("scan.round")
                        .tags("task", "orders", "tier", "0", "outcome", "handled")
                        .timer()
                        .count())
                .isPositive();
        assertThat(registry.find("scan.handler.duration").meters())
                .as("replaced by the observations")
                .isEmpty();
        assertThat(registry.find("scan.round.duration").meters()).isEmpty();
        assertThat(registry.get("scan.lease.lost")
                        .tag("task", "orders")
                        .counter()
                        .count())
                .isZero();
        assertThat(registry.get("scan.latch.timeouts")
                        .tag("task", "orders")
                        .counter()
                        .count())
                .isZero();
    }

    @Test
    void ownedShardsGaugeFollowsTheEngine() {
        startEngine();
        await().until(() -> engine.task("orders").ownedShards().size() == 8);
        assertThat(registry.get("scan.shards.owned")
                        .tag("task", "orders")
                        .gauge()
                        .value())
                .isEqualTo(8);
    }

    @Test
    void backlogGaugeReadsTheCachedCountsAndIsNaNBeforeTheFirst() {
        startEngine();
        assertThat(registry.get("scan.backlog")
                        .tags("task", "orders", "tier", "0")
                        .gauge()
                        .value())
                .isNaN();
        await().until(() -> table.count("status = 0 AND retry_count = 0") == ROWS / 10);
        backlog.set(engine.task("orders").countBacklog());
        assertThat(registry.get("scan.backlog")
                        .tags("task", "orders", "tier", "0")
                        .gauge()
                        .value())
                .isEqualTo(ROWS / 10);
        assertThat(registry.get("scan.backlog")
                        .tags("task", "orders", "tier", "1-2")
                        .gauge()
                        .value())
                .isEqualTo(ROWS / 10);
    }

    @Test
    void aScrapeRunsNoQueryAndNoTagHoldsARowId() {
        startEngine();
        backlog.set(new Backlog(List.of(new Backlog.TierBacklog("0", 5, 0)), 0, 5, 0, T0));
        await().until(() -> table.count("status = 1") == ROWS * 7 / 10);
        engine.stop();
        int before = connections.get();
        for (Meter meter : registry.getMeters()) {
            meter.measure().forEach(measurement -> measurement.getValue());
        }
        assertThat(connections.get()).isEqualTo(before);
        List<String> rowIds =
                LongStream.rangeClosed(1, ROWS).mapToObj(Long::toString).toList();
        assertThat(registry.getMeters())
                .flatMap(meter -> meter.getId().getTags())
                .allSatisfy(tag -> {
                    // error: Micrometer's meter handler tags each observation with its exception, or none;
                    // aged: whether a round waited for the node's worker budget past max-wait, true or false
                    assertThat(tag.getKey()).isIn("task", "tier", "outcome", "error", "aged");
                    assertThat(tag.getValue()).isNotIn(rowIds);
                })
                .extracting(Tag::getKey)
                .contains("task", "tier", "outcome");
    }

    private double rows(String outcome) {
        return registry.get("scan.rows").tags("task", "orders", "outcome", outcome).counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    /** Observations that become meters in {@code registry}, as Boot sets them up. */
    static ObservationRegistry observations(MeterRegistry registry) {
        ObservationRegistry observations = ObservationRegistry.create();
        observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(registry));
        return observations;
    }

    /** The data source, counting the connections it hands out. */
    private DataSource counting(DataSource target) {
        return (DataSource) Proxy.newProxyInstance(
                DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConnection")) {
                        connections.incrementAndGet();
                    }
                    try {
                        return method.invoke(target, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
