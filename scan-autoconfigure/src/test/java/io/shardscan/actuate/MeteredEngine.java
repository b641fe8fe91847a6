package io.shardscan.actuate;

import static org.awaitility.Awaitility.await;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.shardscan.core.CompositeScanListener;
import io.shardscan.core.EngineSettings;
import io.shardscan.core.InMemoryEndpointBans;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.task.EndpointRules;
import io.shardscan.core.task.RangeJob;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.Schedule;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.jdbc.JdbcRangeCursor;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.UserTable;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * A Prometheus registry with every meter Shardscan registers: that of a running engine on H2 with every
 * kind of task (an endpoint column, an {@code until-empty} run, a range task), once it handled a row. The
 * metrics reference is generated from it, and the shipped Grafana dashboard and alert rules are checked
 * against what it scrapes, so a renamed meter fails them.
 */
public final class MeteredEngine {

    private MeteredEngine() {}

    /** The registry of an engine with {@code scan.max-workers} 8 (so the budget timer is there too). */
    public static PrometheusMeterRegistry start(Engines engines) {
        return start(engines, 8);
    }

    /**
     * The registry of an engine with every kind of task, once it handled a row, with {@code scan.max-workers}
     * or without; {@code engines} stops the engine after the test.
     */
    public static PrometheusMeterRegistry start(Engines engines, @Nullable Integer maxWorkers) {
        DataSource dataSource = TestServers.h2("prometheus");
        OrderTable table = new OrderTable(dataSource).recreate(4, true).coordinationTables();
        TaskDefinition task = TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(4)
                // an endpoint column, so that the endpoint meters (registered only for such a task) are scraped
                .endpoints(EndpointRules.of("user_id"))
                // until-empty, so that the run gauges (registered only for a task that keeps runs) are scraped
                .run(RunMode.UNTIL_EMPTY)
                .build();
        ScanEngine[] engine = new ScanEngine[1];
        ScanMetrics metrics = new ScanMetrics(() -> engine[0], name -> null);
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        ScanObservations observations = new ScanObservations(ScanMetricsTests.observations(registry), true);
        // and a range task beside it, so that the range gauges (registered only for range tasks) are scraped
        new UserTable(dataSource).recreate().insertWithGaps(1, 10, 1);
        RangeTask range = new RangeTask(
                        TaskDefinition.builder("users")
                                .table("tb_user")
                                .idColumn("user_id")
                                .build(),
                        1000,
                        Duration.ofMinutes(5),
                        RunMode.ONCE)
                // with a schedule, so that the firings counter (registered only for a scheduled task) is scraped
                .withSchedule(Schedule.every(Duration.ofHours(1)));
        engine[0] = new ScanEngine(
                List.of(new ScanEngine.ScanTask(task, (TaskHandler.PerRow) (row, ctx) -> null)),
                new JdbcTaskStore(dataSource),
                new JdbcShardCoordinator(dataSource),
                new EngineSettings(
                        "node-1",
                        Engines.FAST_TTL,
                        Engines.FAST_RENEW,
                        Engines.FAST_TTL,
                        Duration.ofSeconds(10),
                        maxWorkers),
                ScanClock.system(),
                new CompositeScanListener(List.of(metrics, observations)),
                new InMemoryEndpointBans(ScanClock.system()),
                List.of(new RangeJob(range, (TaskHandler.PerRow) (row, ctx) -> null)),
                Engines.rangeStores(dataSource, new JdbcRangeCursor(dataSource, Engines.STATEMENT_TIMEOUT)));
        metrics.bindTo(registry);
        // one row, so that a handler call and a round that handled it are observed; inserted before the
        // start: the until-empty run of a node that found no row ended, and a row inserted after it waited
        // for the next run (a test thread slower than the engine under load, seen in a CI run)
        table.insert(1, 1, Instant.now().minusSeconds(1));
        engines.start(engine[0]);
        await().until(() ->
                registry.find("scan.round").tag("outcome", "handled").timer() != null
                        && registry.find("scan.handler").timer() != null);
        return registry;
    }

    /** The names of the {@code scan_} samples of one scrape of {@code registry}, e.g. {@code scan_rows_total}. */
    public static Set<String> scrapedNames(PrometheusMeterRegistry registry) {
        return registry.scrape()
                .lines()
                .filter(line -> line.startsWith("scan_"))
                .map(line -> line.replaceAll("[{ ].*", ""))
                .collect(Collectors.toSet());
    }
}
