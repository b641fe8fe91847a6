package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.shardscan.actuate.ScanHealthIndicator;
import io.shardscan.core.task.IndexCheck;
import io.shardscan.core.task.Match;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.CountingDataSource;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A node on PostgreSQL whose small pool is held by statements that wait (a locked table, the
 * application's requests) for longer than the lease TTL: its tasks keep every lease, because the
 * node renews them all in one statement on a connection the renewals keep, apart from the pool's
 * other users and from the tasks' lease ticks. Each test holds the pool by hand (a table lock, or
 * the connections themselves) until the database shows the leases renewed a whole TTL after the pool
 * ran dry, then lets go: no sleeps, no load. The task whose table is locked shows the statement it
 * waits on (health detail, gauge, one WARN naming the table and the statement's kind) until the
 * statement is cancelled after twice the TTL.
 */
@ServerTests
class SlowDatabaseLeaseTests {

    static final int SHARDS = 4;
    static final int POOL = 4;

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final CapturedLog slowLog = new CapturedLog(RunningStatements.class.getName());

    /** Creates tables, locks them and reads the leases: never through the pool under test. */
    final JdbcTemplate admin = new JdbcTemplate(TestServers.postgresDatabase("slow_database"));

    final List<Connection> held = new ArrayList<>();
    HikariDataSource pool;
    CountingDataSource counting;
    OrderTable table;

    @BeforeEach
    void setUp() {
        table = new OrderTable(admin.getDataSource()).recreate(SHARDS, true).coordinationTables();
        admin.execute("DROP TABLE IF EXISTS tb_refund");
        admin.execute("CREATE TABLE tb_refund (LIKE tb_order INCLUDING ALL)");
        JdbcEndpoint endpoint = TestServers.postgresEndpoint("slow_database");
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(endpoint.url());
        config.setUsername(endpoint.user());
        config.setPassword(endpoint.password());
        config.setMaximumPoolSize(POOL);
        // what the starter's startup check asks for: at most a third of the TTL
        config.setConnectionTimeout(250);
        pool = new HikariDataSource(config);
        counting = new CountingDataSource(pool);
    }

    @AfterEach
    void letGo() throws SQLException {
        for (Connection connection : held) {
            connection.close();
        }
        engines.afterEach(null);
        pool.close();
    }

    @Test
    void aTableLockedLongerThanTheTtlCostsAnotherTaskNoLease() throws Exception {
        ScanEngine engine = start(List.of(task("order-sms", "tb_order", null), task("order-close", "tb_refund", null)));
        awaitRenewalsUnderWay(List.of("order-sms", "order-close"));

        // LOCK TABLE in a transaction of the test; the app's requests and order-sms's probe then wait on it
        Connection locker = admin.getDataSource().getConnection();
        held.add(locker);
        locker.setAutoCommit(false);
        try (Statement lock = locker.createStatement()) {
            lock.execute("LOCK TABLE tb_order IN ACCESS EXCLUSIVE MODE");
        }
        // order-sms's own next probe or fetch waits on the lock first, then the app's requests take what is
        // left; a probe of both tasks' idle shards (the tasks of one store probe together) waits on it before
        // that, and is cancelled after a second, when each task probes its own again, apart
        await().until(() -> admin.queryForObject(
                        "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                                + " AND datname = current_database() AND query NOT LIKE '%tb_refund%'",
                        Integer.class)
                >= 1);
        // requests that wait for a connection until they get one, so that they hold the pool also
        // after order-sms's statement was cancelled (twice the TTL) and gave its connection back
        List<CompletableFuture<Void>> requests = IntStream.range(0, POOL)
                .mapToObj(i -> CompletableFuture.runAsync(() -> {
                    while (true) {
                        try {
                            new JdbcTemplate(pool).queryForObject("SELECT COUNT(*) FROM tb_order", Long.class);
                            return;
                        } catch (org.springframework.jdbc.CannotGetJdbcConnectionException e) {
                            // the pool is dry: wait for the next connection given back
                        }
                    }
                }))
                .toList();
        awaitThePoolHeld();
        Timestamp dry = dbNow();

        // the task whose table is locked shows why it stands still: one WARN while it waits, the
        // health's slowStatement, then its statement cancelled after twice the TTL
        TaskView sms = engine.task("order-sms");
        await().until(() -> !slowLog.warnings().isEmpty());
        assertThat(slowLog.warnings())
                .first()
                .asString()
                // the round's fetch or the dispatcher's probe of idle shards, whichever came first
                .containsPattern("^Task order-sms: a (fetch|probe) on tb_order has been running for \\d+ s")
                .contains("longer than scan.lease-ttl (PT2S)")
                .contains("pg_stat_activity and pg_locks");
        Health health = new ScanHealthIndicator(engine).health(true);
        assertThat(health.getStatus()).isIn(Status.UNKNOWN, Status.DOWN);
        assertThat(tasks(health).get("order-sms"))
                .extracting(details -> details.getOrDefault("slowStatement", details.get("statementTimedOut")))
                .asString()
                .containsPattern("a (fetch|probe) on tb_order (has been running for |was cancelled after PT4S)");

        awaitEveryLeaseRenewedAfter(plus(dry, Engines.FAST_TTL.multipliedBy(2)), List.of("order-close"));

        assertThat(sms.statementTimeouts()).isPositive();
        assertThat(tasks(health).get("order-close")).doesNotContainKey("slowStatement");
        TaskView close = engine.task("order-close");
        assertThat(close.stats().leasesLost()).isZero();
        assertThat(close.ownedShards()).hasSize(SHARDS);
        locker.commit();
        CompletableFuture.allOf(
                        requests.stream().map(r -> r.exceptionally(e -> null)).toArray(CompletableFuture[]::new))
                .get();
        assertThat(engine.task("order-sms").stats().leasesLost()).isZero();
        await().until(() -> sms.slowStatement() == null);
        assertThat(slowLog.messages(java.util.logging.Level.INFO))
                .contains("Task order-sms: the slow statement on tb_order ended");
    }

    @SuppressWarnings("unchecked")
    static Map<String, Map<String, Object>> tasks(Health health) {
        return (Map<String, Map<String, Object>>) health.getDetails().get("tasks");
    }

    @Test
    void manyTasksOnASmallPoolThatTheApplicationHoldsKeepTheirLeasesWithOneRenewalPerInterval() throws Exception {
        int tasks = 60;
        admin.execute("ALTER TABLE tb_order ADD COLUMN biz_type INT");
        List<ScanEngine.ScanTask> all = IntStream.range(0, tasks)
                .mapToObj(i -> task("kind-" + i, "tb_order", Match.of("biz_type", i)))
                .toList();
        List<String> names = all.stream().map(t -> t.definition().name()).toList();
        ScanEngine engine = start(all);
        awaitRenewalsUnderWay(names);

        // the application's requests take every connection the renewals did not keep
        while (true) {
            try {
                held.add(pool.getConnection());
            } catch (SQLException e) {
                break;
            }
        }
        awaitThePoolHeld();
        Timestamp dry = dbNow();
        // 60 tasks claiming through 3 connections at startup may lose a claim whose fence waited past its deadline
        Map<String, Long> lostBefore = names.stream()
                .collect(Collectors.toMap(
                        name -> name, name -> engine.task(name).stats().leasesLost()));
        long renewalsBefore = renewalStatements();
        long startedAt = System.nanoTime();

        awaitEveryLeaseRenewedAfter(plus(dry, Engines.FAST_TTL.multipliedBy(2)), names);

        long intervals = Duration.ofNanos(System.nanoTime() - startedAt).dividedBy(Engines.FAST_RENEW) + 2;
        assertThat(renewalStatements() - renewalsBefore)
                .as("renewal statements: one per interval for all %s tasks, %s", tasks, counting.byKind())
                .isBetween(1L, intervals);
        assertThat(names).allSatisfy(name -> {
            assertThat(engine.task(name).stats().leasesLost()).as(name).isEqualTo(lostBefore.get(name));
            assertThat(engine.task(name).ownedShards()).as(name).hasSize(SHARDS);
        });
    }

    ScanEngine start(List<ScanEngine.ScanTask> tasks) {
        EngineSettings settings = new EngineSettings(
                "node-a", Engines.FAST_TTL, Engines.FAST_RENEW, Engines.FAST_TTL, Duration.ofSeconds(5));
        DataSource dataSource = counting.dataSource();
        return engines.start(new ScanEngine(
                tasks,
                new JdbcTaskStore(dataSource),
                new JdbcShardCoordinator(dataSource),
                settings,
                ScanClock.system(),
                ScanListener.NONE));
    }

    static ScanEngine.ScanTask task(String name, String tableName, Match match) {
        TaskDefinition.Builder task = TaskDefinition.builder(name)
                .table(tableName)
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS)
                .indexCheck(IndexCheck.OFF);
        if (match != null) {
            task.match(List.of(match));
        }
        return new ScanEngine.ScanTask(task.build(), (TaskHandler.PerRow) (row, ctx) -> Outcome.done());
    }

    /** Every connection of the pool is taken, and nothing waits to give one back soon. */
    void awaitThePoolHeld() {
        await().until(() -> pool.getHikariPoolMXBean().getActiveConnections() == POOL);
    }

    /**
     * Waits until the node renews the leases of {@code tasks}, not only claimed them: a claim writes the
     * same expiry as a renewal, so one wait could end on the claims alone, before the first renewal
     * took the connection the renewals keep; a test that held the pool then left the renewals without
     * one and every lease lapsed (seen in whole-class runs, where the claims came sooner). The second
     * wait starts after the claims.
     */
    void awaitRenewalsUnderWay(List<String> tasks) {
        awaitEveryLeaseRenewedAfter(dbNow(), tasks);
        awaitEveryLeaseRenewedAfter(dbNow(), tasks);
    }

    /** Waits until every lease of {@code tasks} is this node's and expires after {@code after} plus a TTL. */
    void awaitEveryLeaseRenewedAfter(Timestamp after, List<String> tasks) {
        Timestamp renewed = plus(after, Engines.FAST_TTL);
        await("every lease of " + tasks + " renewed after " + after)
                .until(() -> tasks.stream().allMatch(task -> {
                    Integer fresh = admin.queryForObject(
                            "SELECT COUNT(*) FROM scan_lease WHERE task = ? AND owner = 'node-a' AND expires_at > ?",
                            Integer.class,
                            task,
                            renewed);
                    return fresh == SHARDS;
                }));
    }

    /** The renewals so far: on PostgreSQL with the settled tasks' ticks in the same statement. */
    long renewalStatements() {
        return counting.byKind().entrySet().stream()
                .filter(e -> e.getKey().startsWith("UPDATE scan_lease SET expires_at")
                        || e.getKey().startsWith("WITH renewal AS (UPDATE scan_lease SET expires_at"))
                .mapToLong(e -> e.getValue())
                .sum();
    }

    Timestamp dbNow() {
        return admin.queryForObject("SELECT LOCALTIMESTAMP", Timestamp.class);
    }

    static Timestamp plus(Timestamp at, Duration by) {
        return Timestamp.from(at.toInstant().plus(by));
    }
}
