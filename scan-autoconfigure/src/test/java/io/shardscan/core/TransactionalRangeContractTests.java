package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.spi.RangeStores;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.RangeJob;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.JdbcRangeCursor;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestTime;
import io.shardscan.testsupport.UserTable;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Transactional range jobs ({@code @ScanTask(transactional = true)} in range mode) against real
 * databases: each try of a row (or of a page, for a batch handler) runs in one transaction with the
 * commit of its range's position, so the handler's own inserts into {@code notified} commit exactly
 * once: a stale owner's try whose range was taken over rolls back, a try that throws after writing
 * rolls back, and a row that fails every try is recorded failed with none of its writes. Run on each
 * database through a subclass.
 */
public abstract class TransactionalRangeContractTests {

    protected abstract DataSource createDataSource();

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final CapturedLog scanLog = new CapturedLog("io.shardscan.core.RangeScan");

    private DataSource dataSource;
    private UserTable users;
    private RangeStores stores;
    private String name;

    @BeforeEach
    void setUp() {
        dataSource = createDataSource();
        new OrderTable(dataSource).coordinationTables();
        users = new UserTable(dataSource).recreate();
        stores = Engines.rangeStores(dataSource, new JdbcRangeCursor(dataSource, Engines.STATEMENT_TIMEOUT));
        name = "users-" + System.nanoTime();
    }

    private RangeTask task(long rangeSize, Duration stallTimeout) {
        return new RangeTask(
                TaskDefinition.builder(name)
                        .table("tb_user")
                        .idColumn("user_id")
                        .pageSize(100)
                        .workers(2)
                        .commitInterval(Duration.ofMillis(100))
                        .tiers(List.of(new Tier(0, 2, Duration.ofMillis(200))))
                        .build(),
                rangeSize,
                stallTimeout,
                RunMode.ONCE);
    }

    /** Inserts the row's effect, in the try's transaction: the pool's connection that transaction bound. */
    private void record(Row row, String node, long epoch) {
        users.jdbc().update("INSERT INTO notified (user_id, node, epoch) VALUES (?, ?, ?)", row.id(), node, epoch);
    }

    private ScanEngine node(String node, RangeTask task, TaskHandler handler) {
        return engines.startRange(node, dataSource, stores, new RangeJob(task, handler, true));
    }

    private long effectsOf(long id) {
        return users.jdbc().queryForObject("SELECT COUNT(*) FROM notified WHERE user_id = ?", Long.class, id);
    }

    /**
     * A node's handler writes row 1550's effect and then hangs, its position standing still: past the
     * stall timeout another node takes the range over and runs it from the position the stuck node
     * committed with its last row. When the stuck handler returns, its position commit is refused and
     * its insert rolls back with it: every effect exists exactly once (without the transaction, the rows
     * since the last commit and row 1550 ran twice).
     */
    @Test
    void aStaleOwnersTryRollsBackAndEveryEffectCommitsOnce() throws Exception {
        long inserted = users.insertWithGaps(1, 3_000, 1);
        RangeTask task = task(1_000, Duration.ofSeconds(2));
        CountDownLatch stuck = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean returned = new AtomicBoolean();
        ScanEngine a = node("node-a", task, (TaskHandler.PerRow) (row, ctx) -> {
            record(row, "node-a", ctx.epoch());
            // only the first call hangs: a's other worker may be the one that takes the range over
            if (row.id() == 1_550 && stuck.getCount() > 0) {
                stuck.countDown();
                release.await(60, TimeUnit.SECONDS);
                returned.set(true);
            }
            return null;
        });
        assertThat(stuck.await(30, TimeUnit.SECONDS)).isTrue();
        ScanEngine b = node("node-b", task, (TaskHandler.PerRow) (row, ctx) -> {
            record(row, "node-b", ctx.epoch());
            return null;
        });

        await().atMost(TestTime.scaled(Duration.ofSeconds(60)))
                .until(() -> b.rangeTask(name).snapshot().run().done());
        assertThat(effectsOf(1_550)).as("the new owner's effect of row 1550").isEqualTo(1);
        release.countDown();
        await().until(() -> scanLog.messages(Level.INFO).stream()
                .anyMatch(m -> m.startsWith("Task " + name + ": range ")
                        && m.endsWith(" was taken over (epoch 1 is stale); rolled back the transaction of row 1550,"
                                + " which its new owner runs")));
        assertThat(returned).isTrue();

        assertThat(users.missed()).isZero();
        assertThat(users.duplicates()).as("effects committed twice").isZero();
        assertThat(effectsOf(1_550)).as("the stale owner's insert rolled back").isEqualTo(1);
        assertThat(users.jdbc().queryForObject("SELECT epoch FROM notified WHERE user_id = 1550", Long.class))
                .isEqualTo(2);
        await().until(() -> a.rangeTask(name).snapshot().run().done());
        assertThat(a.rangeTask(name).snapshot().progress().processed()).isEqualTo(inserted);
    }

    /**
     * A try that writes and then throws rolls its write back and the row is tried again in a fresh
     * transaction; a row that fails every try (or returns dead) is recorded failed with none of its
     * writes, the range moving past it; a requeue that succeeds commits its write once.
     */
    @Test
    void aTryThatFailsAfterWritingRollsBackAndAFailedRowLeavesNoEffect() {
        long inserted = users.insertWithGaps(1, 500, 1);
        Set<Long> broken = ConcurrentHashMap.newKeySet();
        broken.add(100L);
        ScanEngine a = node("node-a", task(1_000, Duration.ofMinutes(5)), (TaskHandler.PerRow) (row, ctx) -> {
            record(row, "node-a", ctx.epoch());
            if (broken.contains(row.id()) || (row.id() == 200 && ctx.attempt() < 3)) {
                throw new IllegalStateException("the receiver said no to " + row.id() + " on attempt " + ctx.attempt());
            }
            return row.id() == 300 ? Outcome.dead("no address for 300") : Outcome.done();
        });

        await().until(() -> a.rangeTask(name).snapshot().run().done());
        RangeView view = a.rangeTask(name);
        assertThat(effectsOf(200))
                .as("two failed tries rolled back, the third committed")
                .isEqualTo(1);
        assertThat(effectsOf(100)).as("every try rolled back").isZero();
        assertThat(effectsOf(300)).as("a dead row's try rolled back").isZero();
        assertThat(users.duplicates()).isZero();
        assertThat(users.missed()).isEqualTo(2);
        assertThat(view.snapshot().progress().processed()).isEqualTo(inserted - 2);
        assertThat(view.recentFailures(10))
                .extracting(f -> f.id() + " after " + f.attempts())
                .containsExactlyInAnyOrder("100 after 3", "300 after 1");

        broken.clear();
        assertThat(view.requeue(10)).isEqualTo(2);
        assertThat(effectsOf(100)).as("the requeue's try committed").isEqualTo(1);
        assertThat(view.recentFailures(10)).extracting(f -> f.id()).containsExactly(300L);
        assertThat(effectsOf(300)).isZero();
        assertThat(users.duplicates()).isZero();
    }

    /**
     * A batch handler's page is one unit: its inserts and the position past the page commit in one
     * transaction; a try of the page that throws after writing leaves none of its rows' effects.
     */
    @Test
    void aBatchHandlersPageCommitsWithItsPosition() {
        long inserted = users.insertWithGaps(1, 1_000, 1);
        AtomicBoolean thrown = new AtomicBoolean();
        ScanEngine a = node("node-a", task(400, Duration.ofMinutes(5)), (TaskHandler.Batch) (rows, ctx) -> {
            rows.forEach(row -> record(row, "node-a", ctx.epoch()));
            if (rows.stream().anyMatch(row -> row.id() == 450) && thrown.compareAndSet(false, true)) {
                throw new IllegalStateException("the page of row 450 failed after its inserts");
            }
            return null;
        });

        await().until(() -> a.rangeTask(name).snapshot().run().done());
        assertThat(thrown).isTrue();
        assertThat(users.missed()).isZero();
        assertThat(users.duplicates())
                .as("the failed try's inserts rolled back")
                .isZero();
        assertThat(a.rangeTask(name).snapshot().progress().processed()).isEqualTo(inserted);
        assertThat(a.rangeTask(name).recentFailures(10)).isEmpty();
    }
}
