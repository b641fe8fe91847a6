package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.actuate.ScanBacklogs;
import io.shardscan.core.task.EndpointRules;
import io.shardscan.core.task.MatchOverlap;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.jdbc.JdbcEndpointBans;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.CountingDataSource;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.TestTime;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a node with several idle tasks costs PostgreSQL (issue 26 §5): four tasks of 64 shards with the
 * default tiers, leases and renew interval, JDBC leases, one task with an endpoint column and its bans
 * in the database, and the endpoint's backlog counter, all through one pool: at most one statement per
 * task per second, counted on the client side, every statement of the engine included, and their idle
 * probes and pause reads asked together. (The server
 * counts more transactions: the pool checks a connection that was idle for half a second before it
 * hands it out, with an empty query that is a transaction of its own; see docs/benchmarks.md.)
 */
@ServerTests
class PostgresIdleTasksTests {

    static final int SHARDS = 64;
    static final List<String> TASKS = List.of("orders-a", "orders-b", "orders-c", "orders-sync");

    @RegisterExtension
    final Engines engines = new Engines();

    @Test
    void aNodeWithFourIdleTasksSendsAtMostOneStatementPerTaskPerSecond() {
        DataSource server = TestServers.postgresDatabase("idle_tasks");
        new OrderTable(server).recreate(SHARDS, true).withStores(8).coordinationTables();
        CountingDataSource counting = new CountingDataSource(server);
        DataSource counted = counting.dataSource();
        List<ScanEngine.ScanTask> tasks = TASKS.stream()
                .map(name -> new ScanEngine.ScanTask(task(name), (TaskHandler.PerRow) (row, ctx) -> Outcome.done()))
                .toList();
        ScanEngine engine = engines.start(new ScanEngine(
                tasks,
                new JdbcTaskStore(counted),
                new JdbcShardCoordinator(counted),
                new EngineSettings(
                        "node-a",
                        Duration.ofSeconds(6),
                        Duration.ofSeconds(2),
                        Duration.ofSeconds(6),
                        Duration.ofSeconds(10)),
                ScanClock.system(),
                ScanListener.NONE,
                new JdbcEndpointBans(counted)));
        ScanBacklogs backlogs = new ScanBacklogs(engine, Duration.ofSeconds(10));
        backlogs.start();
        try {
            // every shard held and probed twice: past the claims' fetches and the first backlog count
            await().atMost(TestTime.scaled(Duration.ofSeconds(90))).until(() -> TASKS.stream()
                    .allMatch(name -> engine.task(name).ownedShards().size() == SHARDS
                            && engine.task(name).stats().probes() >= 2));
            long before = counting.total();
            Map<String, Long> kindsBefore = counting.byKind();
            long probesBefore = engine.task("orders-a").stats().probes();
            Map<String, Long> everyProbeBefore = probes(engine);
            long started = System.nanoTime();
            // four probes of the first tier (3 s each), however long a loaded machine makes them: a slow
            // machine only lowers the rate measured here
            await().atMost(TestTime.scaled(Duration.ofSeconds(90)))
                    .until(() -> engine.task("orders-a").stats().probes() - probesBefore >= 4);
            double seconds = (System.nanoTime() - started) / 1e9;
            long statements = counting.total() - before;
            Map<String, Long> kinds = delta(kindsBefore, counting.byKind());
            double perTask = statements / seconds / TASKS.size();
            String report = String.format(
                    "%.2f statements per task per second (%d over %.1f s, %d tasks): %s",
                    perTask, statements, seconds, TASKS.size(), kinds);
            System.out.println(getClass().getSimpleName() + ": " + report);
            assertThat(TASKS).as("the idle node keeps its shards").allSatisfy(name -> assertThat(
                            engine.task(name).ownedShards())
                    .hasSize(SHARDS));
            assertThat(perTask).as(report).isLessThanOrEqualTo(1.0);
            // the four tasks read one data source: each probe asks the others' idle shards along, so the
            // four first tiers of 3 s cost about one statement per 3 s, not four, and every task is probed
            assertThat(ofKind(kinds, "scan_probe")).as(report).isLessThanOrEqualTo((long) (seconds / 3) + 1);
            // and their pauses, each read every fifth renew interval (10 s), are read in one statement
            assertThat(ofKind(kinds, "FROM scan_task")).as(report).isLessThanOrEqualTo((long) (seconds / 10) + 1);
            Map<String, Long> everyProbe = probes(engine);
            assertThat(TASKS)
                    .as("every task's idle shards are probed: " + everyProbe)
                    .allSatisfy(name -> assertThat(everyProbe.get(name) - everyProbeBefore.get(name))
                            .isGreaterThanOrEqualTo(3));
        } finally {
            backlogs.stop();
        }
    }

    /** The statements counted in {@code kinds} whose text has {@code fragment}. */
    private static long ofKind(Map<String, Long> kinds, String fragment) {
        return kinds.entrySet().stream()
                .filter(kind -> kind.getKey().contains(fragment))
                .mapToLong(Map.Entry::getValue)
                .sum();
    }

    private static Map<String, Long> probes(ScanEngine engine) {
        Map<String, Long> probes = new TreeMap<>();
        TASKS.forEach(name -> probes.put(name, engine.task(name).stats().probes()));
        return probes;
    }

    /** Four tasks on one empty table (they share it knowingly), the last one with an endpoint column. */
    private static TaskDefinition task(String name) {
        TaskDefinition.Builder task = TaskDefinition.builder(name)
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS)
                .matchOverlap(MatchOverlap.ALLOWED);
        return name.endsWith("sync")
                ? task.endpoints(EndpointRules.of("store_id")).build()
                : task.build();
    }

    private static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> delta = new TreeMap<>();
        after.forEach((kind, count) -> {
            long d = count - before.getOrDefault(kind, 0L);
            if (d > 0) {
                delta.put(kind, d);
            }
        });
        return delta;
    }
}
