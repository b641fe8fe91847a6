package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.awaitility.core.ConditionTimeoutException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * How a task's free workers are spread over the rounds one dispatcher pass starts, without a node-wide
 * budget: the arithmetic, and on H2 that due shards run their rounds side by side on shares of the
 * workers instead of the first taking them all.
 */
class WorkerSharesTests {

    static final int WORKERS = 8;
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    @RegisterExtension
    final Engines engines = new Engines();

    final DataSource dataSource = TestServers.h2("worker_shares");
    final SettableScanClock clock = new SettableScanClock(T0);
    final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void openHandlers() {
        release.countDown();
    }

    @Test
    void freeWorkersAreSpreadEvenlyTheFirstRoundsTakingTheRest() {
        assertThat(shares(8, 2)).containsExactly(4, 4);
        assertThat(shares(8, 3)).containsExactly(3, 3, 2);
        assertThat(shares(7, 7)).containsExactly(1, 1, 1, 1, 1, 1, 1);
        assertThat(shares(2, 3)).containsExactly(1, 1, 0);
        assertThat(shares(8, 1)).containsExactly(8);
        assertThat(shares(0, 2)).containsExactly(0, 0);
    }

    @Test
    void aRoundThatDoesNotStartLeavesItsShareToTheOthers() {
        WorkerShares shares = new WorkerShares(8, 3);
        assertThat(shares.next()).isEqualTo(3);
        shares.skip();
        assertThat(shares.next()).isEqualTo(5);
        assertThat(shares.left()).isZero();
    }

    @Test
    void twoDueShardsShareTheFreeWorkers() {
        assertThat(handlersAtOnce(2))
                .as("handlers running at once in shards 0 and 1")
                .containsExactly(4, 4);
    }

    @Test
    void twoDueShardsShareTheFreeWorkersOfABudget() {
        assertThat(handlersAtOnce(2, 200))
                .as("handlers running at once in shards 0 and 1")
                .containsExactly(4, 4);
    }

    @Test
    void threeDueShardsShareTheFreeWorkersTheRestToTheFirst() {
        // which shard gets 2 depends on where the pass's rotation starts
        assertThat(handlersAtOnce(3))
                .as("handlers running at once in shards 0 to 2")
                .containsExactlyInAnyOrder(3, 3, 2);
    }

    /**
     * Starts an engine of {@link #WORKERS} workers holding {@code shards} shards with many rows each, due
     * in the same pass, and whose handlers wait for {@link #release}; returns how many handlers each
     * shard runs once all workers are busy, then lets every row finish.
     */
    private List<Integer> handlersAtOnce(int shards) {
        return handlersAtOnce(shards, null);
    }

    private List<Integer> handlersAtOnce(int shards, @Nullable Integer maxWorkers) {
        OrderTable table = new OrderTable(dataSource).recreate(shards, true).coordinationTables();
        AtomicIntegerArray running = new AtomicIntegerArray(shards);
        AtomicInteger busy = new AtomicInteger();
        AtomicLong seq = new AtomicLong();
        TaskDefinition task = TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(shards)
                .pageSize(50)
                .workers(WORKERS)
                .tiers(List.of(Tier.of("0", Duration.ofSeconds(3))))
                .build();
        TaskHandler.PerRow handler = (row, ctx) -> {
            running.incrementAndGet(ctx.shard());
            busy.incrementAndGet();
            try {
                // not a wait to get green: the assertions run while every worker waits here
                release.await(TestTime.BUDGET.toMillis(), TimeUnit.MILLISECONDS);
            } finally {
                busy.decrementAndGet();
                running.decrementAndGet(ctx.shard());
            }
            return table.recordEffect(row, ctx, seq.incrementAndGet());
        };
        ScanEngine engine = engines.start(new ScanEngine(
                List.of(new ScanEngine.ScanTask(task, handler)),
                new JdbcTaskStore(dataSource),
                new JdbcShardCoordinator(dataSource),
                Engines.settings("node-a", maxWorkers),
                clock,
                ScanListener.NONE));
        // the table is empty until the task is paused, so the rows come due in every shard in one pass
        engine.task("orders").pause();
        await().until(() -> engine.task("orders").ownedShards().size() == shards);
        int rows = 400 * shards;
        table.insert(rows, 64, T0.minus(Duration.ofHours(1)));
        // a shard whose empty fetch made its tier idle is probed again once its interval passed
        clock.advance(Duration.ofMinutes(1));
        engine.task("orders").resume();

        try {
            await().until(() -> busy.get() == WORKERS);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(
                    "handlers running at once per shard: " + running + ", not all " + WORKERS + " workers", e);
        }
        List<Integer> each = new ArrayList<>();
        for (int shard = 0; shard < shards; shard++) {
            each.add(running.get(shard));
        }
        assertThat(table.count("status = 0"))
                .as("no row finished before the handlers were let go")
                .isEqualTo(rows);

        release.countDown();
        await().atMost(TestTime.scaled(Duration.ofSeconds(60))).until(() -> table.count("status = 1") == rows);
        assertThat(table.duplicateEffects()).isZero();
        return each;
    }

    private static List<Integer> shares(int free, int rounds) {
        WorkerShares shares = new WorkerShares(free, rounds);
        List<Integer> each = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            each.add(shares.next());
        }
        return each;
    }
}
