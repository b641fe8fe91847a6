package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.actuate.ScanHealthIndicator;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.RangeJob;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.JdbcRangeCursor;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestTime;
import io.shardscan.testsupport.UserTable;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * A range task whose table a test transaction keeps locked while its workers read pages: the page
 * read is cancelled after the statement timeout the stores were built with (twice
 * {@code scan.lease-ttl}, from the engine's settings), one WARN and the health's
 * {@code statementTimedOut} name the task, the statement's kind, the table and the fix, and once the
 * lock is gone every row runs exactly once (no position was committed past a row not run). The lock
 * is held until the engine itself counted the timeout: no sleeps. One small subclass per database.
 */
@ServerTests
abstract class RangeStatementTimeoutContractTests {

    static final String TASK = "notify-users";

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final CapturedLog log = new CapturedLog("io.shardscan.core");

    /** Handlers of rows past the first ones wait here until the table is locked. */
    final CountDownLatch locked = new CountDownLatch(1);

    final CountDownLatch parked = new CountDownLatch(1);
    UserTable users;
    Connection locker;

    abstract DataSource dataSource();

    /** In {@code locker}'s open transaction, locks tb_user so that the engine's reads of it wait. */
    abstract void lockUsers(Connection locker) throws SQLException;

    /** Ends the lock. */
    abstract void unlockUsers(Connection locker) throws SQLException;

    @BeforeEach
    void setUp() {
        new OrderTable(dataSource()).coordinationTables();
        users = new UserTable(dataSource()).recreate();
    }

    @AfterEach
    void letGo() throws SQLException {
        locked.countDown();
        if (locker != null && !locker.isClosed()) {
            locker.rollback();
            locker.close();
        }
        engines.afterEach(null);
    }

    @Test
    void aPageReadWaitingOnALockedTableIsCancelledAfterTheTimeoutAndEveryRowRunsOnceAfterwards() throws Exception {
        long inserted = users.insertWithGaps(1, 600, 1);
        EngineSettings settings = new EngineSettings(
                "node-a", Engines.FAST_TTL, Engines.FAST_RENEW, Engines.FAST_TTL, Duration.ofSeconds(10));
        Duration timeout = settings.statementTimeout();
        ScanEngine engine = engines.start(new ScanEngine(
                List.of(),
                new JdbcTaskStore(dataSource()),
                new JdbcShardCoordinator(dataSource()),
                settings,
                ScanClock.system(),
                ScanListener.NONE,
                new InMemoryEndpointBans(ScanClock.system()),
                List.of(new RangeJob(task(), (TaskHandler.PerRow) (row, ctx) -> {
                    if (row.id() > 60) {
                        parked.countDown();
                        locked.await(60, TimeUnit.SECONDS);
                    }
                    users.jdbc()
                            .update(
                                    "INSERT INTO notified (user_id, node, epoch) VALUES (?, ?, ?)",
                                    row.id(),
                                    "node-a",
                                    ctx.epoch());
                    return Outcome.done();
                })),
                Engines.rangeStores(dataSource(), new JdbcRangeCursor(dataSource(), timeout), timeout)));
        RangeView view = engine.rangeTask(TASK);

        // a worker holds a page in its hands: the next thing it does with tb_user is read a page
        assertThat(parked.await(30, TimeUnit.SECONDS)).isTrue();
        locker = dataSource().getConnection();
        locker.setAutoCommit(false);
        lockUsers(locker);
        locked.countDown();

        // the count goes up before the caller logs the timeout: wait for both
        await("the engine cancels a page read on the locked table and says so")
                .atMost(TestTime.scaled(Duration.ofSeconds(60)))
                .until(() -> view.statementTimeouts() > 0
                        && log.warnings().stream().anyMatch(w -> w.contains("was cancelled after")));
        String expected = "a page read on tb_user was cancelled after " + timeout + " (twice scan.lease-ttl)";
        assertThat(timeout).isEqualTo(Duration.ofSeconds(4));
        assertThat(view.statementTimedOut())
                .startsWith(expected)
                .contains("tb_user is locked or the database is too slow")
                .contains("pg_stat_activity")
                .contains("SHOW PROCESSLIST")
                .contains("keeps its last committed position");
        List<String> warnings = log.warnings().stream()
                .filter(w -> w.contains("was cancelled after"))
                .toList();
        assertThat(warnings).hasSize(1).first().asString().startsWith("Task " + TASK + ": " + expected);
        assertThat(log.warnings()).noneMatch(w -> w.contains("range scan failed"));
        Health health = new ScanHealthIndicator(engine).health(true);
        assertThat(health.getStatus()).isEqualTo(Status.UNKNOWN);
        assertThat(ranges(health).get(TASK))
                .extracting(details -> details.get("statementTimedOut"))
                .asString()
                .startsWith(expected);

        unlockUsers(locker);
        await().atMost(TestTime.scaled(Duration.ofSeconds(60)))
                .until(() -> view.snapshot().run().done());
        assertThat(users.missed()).isZero();
        assertThat(users.duplicates()).isZero();
        assertThat(users.notifiedIds()).isEqualTo(inserted);
        assertThat(view.snapshot().progress().processed()).isEqualTo(inserted);
        await().until(() -> view.statementTimedOut() == null);
        assertThat(new ScanHealthIndicator(engine).health(true).getStatus()).isEqualTo(Status.UP);
    }

    private static RangeTask task() {
        return new RangeTask(
                TaskDefinition.builder(TASK)
                        .table("tb_user")
                        .idColumn("user_id")
                        .pageSize(20)
                        .workers(2)
                        .commitInterval(Duration.ofMillis(100))
                        .tiers(List.of(new Tier(0, 2, Duration.ofMillis(200))))
                        .build(),
                100,
                Duration.ofMinutes(5),
                RunMode.ONCE);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> ranges(Health health) {
        return (Map<String, Map<String, Object>>) health.getDetails().get("ranges");
    }
}
