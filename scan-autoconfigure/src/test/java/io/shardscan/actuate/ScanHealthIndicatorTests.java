package io.shardscan.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.TaskView;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.CuttableCoordinator;
import io.shardscan.testsupport.CuttableDataSource;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/** The health of a real engine on H2 as its coordinator comes and goes and its task is paused. */
class ScanHealthIndicatorTests {

    @RegisterExtension
    final Engines engines = new Engines();

    final DataSource dataSource = TestServers.h2("health");
    final OrderTable table = new OrderTable(dataSource).recreate(4, true).coordinationTables();

    @RegisterExtension
    final CapturedLog roundLog = new CapturedLog("io.shardscan.core.Round");

    @RegisterExtension
    final CapturedLog probeLog = new CapturedLog("io.shardscan.core.IdleProbe");

    final CuttableCoordinator coordinator = new CuttableCoordinator(new JdbcShardCoordinator(dataSource));

    @Test
    void anErrorWhileCheckingIsDownWithTheErrorNotAnExceptionOfItsOwn() {
        ScanEngine engine = start(dataSource, coordinator, orders().build());
        ScanHealthIndicator health = new ScanHealthIndicator(engine);
        coordinator.failKindWith(new NoClassDefFoundError("io/shardscan/jdbc/JdbcShardCoordinator"));

        Health down = health.health(true);

        assertThat(down.getStatus()).isEqualTo(Status.DOWN);
        assertThat(String.valueOf(down.getDetails().get("error")))
                .contains("java.lang.NoClassDefFoundError: io/shardscan/jdbc/JdbcShardCoordinator", "Restart the node");
    }

    /**
     * The first tick reads every lease free and then claims them all; the next tick, which would read
     * them back, is a renew interval away (here never). Health must count the shards this node holds as
     * owned in between. In a CI run, a warm JVM finished {@code EndpointEventsTests}' rows before its
     * engine's second tick, and its health read UNKNOWN with every shard held.
     */
    @Test
    void shardsClaimedSinceTheLastTickReadTheLeasesCountAsOwned() {
        ScanEngine engine = engines.start(
                "node-1",
                dataSource,
                coordinator,
                new ScanEngine.ScanTask(orders().build(), (TaskHandler.PerRow) (row, ctx) -> null),
                ScanClock.system(),
                ScanListener.NONE,
                Duration.ofMinutes(20),
                Duration.ofMinutes(10));
        await().until(() -> engine.task("orders").ownedShards().size() == 4);

        Health health = new ScanHealthIndicator(engine).health(true);

        assertThat(health.getStatus()).as("health %s", health.getDetails()).isEqualTo(Status.UP);
        assertThat(details(health)).containsEntry("unownedShards", 0L);
        assertThat(engine.task("orders").leases()).hasSize(4).allSatisfy(lease -> {
            assertThat(lease.owner()).isEqualTo("node-1");
            assertThat(lease.expiresAt()).isNotNull();
        });
    }

    @Test
    void followsTheCoordinatorAndShowsThePauseAsADetailOnly() {
        ScanEngine engine = start(dataSource, coordinator, orders().build());
        ScanHealthIndicator health = new ScanHealthIndicator(engine);
        MeterRegistry registry = new SimpleMeterRegistry();
        new ScanMetrics(() -> engine, name -> null).bindTo(registry);
        Gauge reachable =
                registry.get("scan.coordinator.reachable").tag("task", "orders").gauge();
        await().until(() -> status(health).equals(Status.UP));
        assertThat(reachable.value()).isEqualTo(1);
        assertThat(details(health.health(true)))
                .containsEntry("coordinator", "jdbc")
                .containsEntry("unownedShards", 0L)
                .containsEntry("ownedShardsHere", 4);

        engine.task("orders").pause();
        assertThat(status(health))
                .as("a paused background task must not take the web node out of service")
                .isEqualTo(Status.UP);
        assertThat(details(health.health(true))).containsEntry("state", TaskView.State.PAUSED);
        engine.task("orders").resume();

        coordinator.cut();
        await().until(() -> status(health).equals(Status.DOWN));
        assertThat(details(health.health(true))).containsEntry("coordinatorReachable", false);
        assertThat(reachable.value()).as("the stall shows as a metric too").isZero();
        coordinator.heal();
        await().until(() -> status(health).equals(Status.UP));
        assertThat(reachable.value()).isEqualTo(1);
    }

    /**
     * A database that stops giving connections to the task's store: the health is DOWN with
     * {@code databaseReachable=false}, the gauge reads 0, and both recover with the database.
     */
    @Test
    void aDatabaseThatGivesNoConnectionIsDownAndShowsInTheMetric() {
        CuttableDataSource store = new CuttableDataSource(dataSource);
        ScanEngine engine = start(
                store,
                new JdbcShardCoordinator(dataSource),
                orders().tiers(List.of(Tier.of("0", Duration.ofSeconds(1)))).build());
        ScanHealthIndicator health = new ScanHealthIndicator(engine);
        MeterRegistry registry = new SimpleMeterRegistry();
        new ScanMetrics(() -> engine, name -> null).bindTo(registry);
        Gauge reachable =
                registry.get("scan.store.reachable").tag("task", "orders").gauge();
        await().until(() -> status(health).equals(Status.UP));
        assertThat(reachable.value()).isEqualTo(1);

        store.cut();
        await().until(() -> status(health).equals(Status.DOWN));
        assertThat(details(health.health(true))).containsEntry("databaseReachable", false);
        assertThat(reachable.value()).as("the stall shows as a metric too").isZero();
        // the failure is logged just after the store is marked unreachable
        await().untilAsserted(() -> {
            List<String> warnings = new ArrayList<>(roundLog.warnings());
            warnings.addAll(probeLog.warnings());
            assertThat(warnings).as("and as a log line naming the cause").anySatisfy(m -> assertThat(m)
                    .contains("Connection is not available"));
        });

        store.heal();
        await().until(() -> status(health).equals(Status.UP));
        assertThat(reachable.value()).isEqualTo(1);
    }

    /**
     * A fetch the database refuses (a column dropped under the task) fails every round and idle probe: the
     * database was reached, so the health stays UP, and the failure is logged at WARN once, the
     * other rounds at DEBUG.
     */
    @Test
    void aStatementTheDatabaseRefusesKeepsItReachableAndWarnsOnce() {
        ScanEngine engine =
                engines.start("node-1", dataSource, orders().build(), (TaskHandler.PerRow) (row, ctx) -> null);
        ScanHealthIndicator health = new ScanHealthIndicator(engine);
        await().until(() -> status(health).equals(Status.UP));
        table.jdbc().execute("DROP INDEX tb_order_scan_idx");
        table.jdbc().execute("ALTER TABLE tb_order DROP COLUMN retry_count");
        // idle shards meet the refusal in their probe, others in their round: both fail every second
        await().until(() -> failures(roundLog.messages()) + failures(probeLog.messages()) >= 4);
        assertThat(status(health)).isEqualTo(Status.UP);
        assertThat(details(health.health(true))).containsEntry("databaseReachable", true);
        // one line per cause: a SELECT that ran during the ALTER TABLE once failed first with H2's own
        // ConcurrentModificationException (ci3), a cause of its own with a line of its own
        assertThat(causes(roundLog.warnings())).doesNotHaveDuplicates();
        assertThat(causes(probeLog.warnings())).doesNotHaveDuplicates();
        List<String> warnings = new ArrayList<>(roundLog.warnings());
        warnings.addAll(probeLog.warnings());
        assertThat(warnings).filteredOn(m -> m.contains("failed")).isNotEmpty().allSatisfy(m -> assertThat(m)
                .contains("RETRY_COUNT"));
        List<String> quiet = new ArrayList<>(roundLog.messages(Level.FINE));
        quiet.addAll(probeLog.messages(Level.FINE));
        assertThat(quiet).anyMatch(m -> m.contains("failed"));
    }

    /** The exception class each "failed" line names first. */
    private static List<String> causes(List<String> messages) {
        Pattern exception = Pattern.compile("[\\w.]+Exception");
        return messages.stream()
                .filter(m -> m.contains("failed"))
                .map(m -> exception
                        .matcher(m)
                        .results()
                        .findFirst()
                        .map(MatchResult::group)
                        .orElse(m))
                .toList();
    }

    private static long failures(List<String> messages) {
        return messages.stream()
                .filter(m -> m.contains("round failed") || m.contains("idle shards failed"))
                .count();
    }

    private static Status status(ScanHealthIndicator health) {
        return health.health(false).getStatus();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> details(Health health) {
        return (Map<String, Object>) ((Map<String, Object>) health.getDetails().get("tasks")).get("orders");
    }

    private static TaskDefinition.Builder orders() {
        return OrderTable.task("orders", 4);
    }

    private ScanEngine start(DataSource store, ShardCoordinator leases, TaskDefinition task) {
        return engines.start(
                "node-1",
                store,
                leases,
                new ScanEngine.ScanTask(task, (TaskHandler.PerRow) (row, ctx) -> null),
                ScanClock.system(),
                ScanListener.NONE,
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
    }
}
