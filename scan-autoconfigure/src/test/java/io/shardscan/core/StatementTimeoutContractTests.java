package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.actuate.ScanHealthIndicator;
import io.shardscan.core.task.IndexCheck;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestTime;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A task whose table a test transaction keeps locked longer than the statement timeout (twice
 * {@code scan.lease-ttl}): the statement its rounds wait on is cancelled, the failure names the
 * statement, the table, the timeout and the fix (log, health), another task on another table goes
 * on meanwhile, and once the lock is gone every row runs exactly once. The lock is held until the
 * engine itself counted the timeout: no sleeps. One small subclass per database.
 */
abstract class StatementTimeoutContractTests {

    static final int SHARDS = 4;
    static final int ROWS = 40;
    static final Duration TIMEOUT = Engines.FAST_TTL.multipliedBy(2);

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final CapturedLog log = new CapturedLog("io.shardscan.core");

    final Map<String, Map<Long, AtomicInteger>> handled = new ConcurrentHashMap<>();
    OrderTable table;
    Connection locker;

    abstract DataSource dataSource();

    /** In {@code locker}'s open transaction, locks tb_order so that the engine's reads of it wait. */
    abstract void lockOrders(Connection locker) throws SQLException;

    /** Ends the lock and commits what {@code locker} inserted. */
    abstract void unlockOrders(Connection locker) throws SQLException;

    /** How many statements that start with {@code prefix} have waited on a lock for longer than {@code over}, by the database's clock. */
    abstract int waitingLongerThan(JdbcTemplate jdbc, String prefix, Duration over);

    /** Creates tb_refund as tb_order is. */
    abstract void createRefunds(JdbcTemplate jdbc);

    @BeforeEach
    void setUp() {
        table = new OrderTable(dataSource()).recreate(SHARDS, true).coordinationTables();
        table.jdbc().execute("DROP TABLE IF EXISTS tb_refund");
        createRefunds(table.jdbc());
    }

    @AfterEach
    void letGo() throws SQLException {
        if (locker != null && !locker.isClosed()) {
            locker.rollback();
            locker.close();
        }
        engines.afterEach(null);
    }

    @Test
    void aRoundWaitingOnALockedTableIsCancelledAfterTheTimeoutAndItsRowsRunOnceAfterwards() throws Exception {
        ScanEngine engine = start();
        TaskView sms = engine.task("order-sms");
        TaskView refund = engine.task("refund");
        await().until(() -> sms.ownedShards().size() == SHARDS
                && refund.ownedShards().size() == SHARDS
                && sms.stats().probes() > 0);

        locker = dataSource().getConnection();
        locker.setAutoCommit(false);
        lockOrders(locker);
        // rows that appear only when the lock ends: none may be lost or run twice through the timeouts
        insert(locker, "tb_order", 1);

        await("the engine cancels a statement on the locked table")
                .atMost(TestTime.scaled(Duration.ofSeconds(60)))
                .until(() -> sms.statementTimeouts() > 0);
        assertThat(sms.statementTimedOut())
                .containsPattern(
                        "^a (fetch|probe) on tb_order was cancelled after " + TIMEOUT + " \\(twice scan.lease-ttl\\)")
                .contains("find the statement that holds the lock")
                .contains("or raise scan.lease-ttl");
        await().until(() -> log.warnings().stream().anyMatch(w -> w.contains("was cancelled after " + TIMEOUT)));
        assertThat(log.warnings().stream().filter(w -> w.contains("was cancelled after")))
                .first()
                .asString()
                // the task's probe line, or a round's when one was running as the lock came (a busy machine)
                .containsPattern(
                        "^Task order-sms( shard \\d+)?: .*a (fetch|probe) on tb_order was cancelled after PT4S")
                .doesNotContain("the database was not reached");
        Health health = new ScanHealthIndicator(engine).health(true);
        assertThat(health.getStatus()).isEqualTo(Status.UNKNOWN);
        assertThat(SlowDatabaseLeaseTests.tasks(health).get("order-sms"))
                .containsEntry("databaseReachable", true)
                .extracting(details -> details.get("statementTimedOut"))
                .asString()
                .contains("on tb_order was cancelled after PT4S");

        // the other task's table is not locked: its rows run while order-sms's still wait
        insert(null, "tb_refund", 1);
        await().until(() -> done("tb_refund") == ROWS);
        assertThat(refund.statementTimeouts()).isZero();
        assertThat(handledOnce("refund")).isEqualTo(ROWS);
        assertThat(handled.getOrDefault("order-sms", Map.of())).isEmpty();

        unlockOrders(locker);
        await().atMost(TestTime.scaled(Duration.ofSeconds(60))).until(() -> done("tb_order") == ROWS);
        assertThat(handledOnce("order-sms")).isEqualTo(ROWS);
        assertThat(handled.get("order-sms").values())
                .allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
        assertThat(sms.stats().leasesLost()).isZero();
        assertThat(refund.stats().leasesLost()).isZero();
        await().until(() -> sms.statementTimedOut() == null);
    }

    /**
     * A transactional handler's own statement waits on a row lock longer than the statement timeout:
     * it is the application's, in the application's transaction, so it is not cancelled; the row's
     * write-back in the same transaction commits with it once the lock ends.
     */
    @Test
    void aTransactionalHandlersOwnStatementIsNotBoundedByTheTimeout() throws Exception {
        table.jdbc().execute("DROP TABLE IF EXISTS side");
        table.jdbc().execute("CREATE TABLE side (id INT PRIMARY KEY, n INT NOT NULL)");
        table.jdbc().update("INSERT INTO side (id, n) VALUES (1, 0)");
        locker = dataSource().getConnection();
        locker.setAutoCommit(false);
        try (var lock = locker.createStatement()) {
            lock.executeQuery("SELECT n FROM side WHERE id = 1 FOR UPDATE").close();
        }
        JdbcTemplate application = new JdbcTemplate(dataSource());
        TaskDefinition definition = task("order-sms", "tb_order").definition();
        ScanEngine engine = engines.start(new ScanEngine(
                List.of(new ScanEngine.ScanTask(
                        definition,
                        (TaskHandler.PerRow) (row, ctx) -> {
                            handled.computeIfAbsent("order-sms", n -> new ConcurrentHashMap<>())
                                    .computeIfAbsent(row.id(), id -> new AtomicInteger())
                                    .incrementAndGet();
                            application.update("UPDATE side SET n = n + 1 WHERE id = 1");
                            return Outcome.done();
                        },
                        true)),
                new JdbcTaskStore(dataSource()),
                new JdbcShardCoordinator(dataSource()),
                new EngineSettings(
                        "node-a", Engines.FAST_TTL, Engines.FAST_RENEW, Engines.FAST_TTL, Duration.ofSeconds(5)),
                ScanClock.system(),
                ScanListener.NONE));
        table.insert(1, 1, 1, Instant.now());

        await("the handler's update waits on the lock longer than the timeout")
                .atMost(TestTime.scaled(Duration.ofSeconds(60)))
                .until(() -> waitingLongerThan(table.jdbc(), "UPDATE side", TIMEOUT.plusSeconds(1)) == 1);
        locker.commit();

        await().until(() -> done("tb_order") == 1);
        assertThat(table.jdbc().queryForObject("SELECT n FROM side WHERE id = 1", Integer.class))
                .isEqualTo(1);
        assertThat(handled.get("order-sms").get(1L).get()).isEqualTo(1);
        assertThat(engine.task("order-sms").statementTimeouts()).isZero();
    }

    ScanEngine start() {
        EngineSettings settings = new EngineSettings(
                "node-a", Engines.FAST_TTL, Engines.FAST_RENEW, Engines.FAST_TTL, Duration.ofSeconds(5));
        return engines.start(new ScanEngine(
                List.of(task("order-sms", "tb_order"), task("refund", "tb_refund")),
                new JdbcTaskStore(dataSource()),
                new JdbcShardCoordinator(dataSource()),
                settings,
                ScanClock.system(),
                ScanListener.NONE));
    }

    ScanEngine.ScanTask task(String name, String tableName) {
        TaskDefinition definition = TaskDefinition.builder(name)
                .table(tableName)
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS)
                .tiers(List.of(Tier.of("0", Duration.ofMillis(500)), Tier.of("1-15", Duration.ofSeconds(1))))
                .indexCheck(IndexCheck.OFF)
                .build();
        return new ScanEngine.ScanTask(definition, (TaskHandler.PerRow) (row, ctx) -> {
            handled.computeIfAbsent(name, n -> new ConcurrentHashMap<>())
                    .computeIfAbsent(row.id(), id -> new AtomicInteger())
                    .incrementAndGet();
            return Outcome.done();
        });
    }

    /** Inserts {@link #ROWS} rows from {@code firstId} into {@code tableName}, on {@code connection} when given. */
    void insert(Connection connection, String tableName, long firstId) throws SQLException {
        String sql = "INSERT INTO " + tableName + " (order_id, user_id, phone, updated_at) VALUES (?, ?, ?, ?)";
        if (connection == null) {
            for (long id = firstId; id < firstId + ROWS; id++) {
                table.jdbc().update(sql, id, id % 7, "+1555" + id, OrderTable.utc(Instant.now()));
            }
            return;
        }
        try (var insert = connection.prepareStatement(sql)) {
            for (long id = firstId; id < firstId + ROWS; id++) {
                insert.setLong(1, id);
                insert.setLong(2, id % 7);
                insert.setString(3, "+1555" + id);
                insert.setObject(4, OrderTable.utc(Instant.now()));
                insert.addBatch();
            }
            insert.executeBatch();
        }
    }

    int done(String tableName) {
        return table.jdbc().queryForObject("SELECT COUNT(*) FROM " + tableName + " WHERE status = 1", Integer.class);
    }

    int handledOnce(String task) {
        return (int) handled.getOrDefault(task, Map.of()).values().stream()
                .filter(n -> n.get() == 1)
                .count();
    }
}
