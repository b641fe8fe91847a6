package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.task.Ordering;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.testsupport.CuttableCoordinator;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.RoundEvents;
import io.shardscan.testsupport.TestServers;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What the dispatcher and the lanes start, and in which order, on H2. */
class DispatchTests {

    @RegisterExtension
    final Engines engines = new Engines();

    final DataSource dataSource = TestServers.h2("dispatch");
    final OrderTable table = new OrderTable(dataSource).recreate(1, true).coordinationTables();
    final CountDownLatch renewals = new CountDownLatch(1);

    TaskDefinition.Builder task() {
        return TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(1)
                .pageSize(50)
                .workers(1);
    }

    @AfterEach
    void openRenewals() {
        renewals.countDown();
    }

    @Test
    void noRowStartsAfterTheLocalLeaseDeadline() {
        table.insert(50, 1, Instant.now());
        JumpingClock clock = new JumpingClock();
        AtomicLong seq = new AtomicLong();
        RoundEvents rounds = new RoundEvents();
        // renewals and lease ticks that, once held, do not come back in time: the lease is neither renewed
        // nor refused, and the shard is not claimed again once its lease expired
        CuttableCoordinator gated = new CuttableCoordinator(new JdbcShardCoordinator(dataSource));
        ScanEngine engine = engines.start(
                "node-a",
                dataSource,
                gated,
                new ScanEngine.ScanTask(task().build(), (TaskHandler.PerRow) (row, ctx) -> {
                    if (row.id() == 1) {
                        gated.holdRenewalsUntil(renewals);
                        gated.holdTicksUntil(renewals);
                        clock.jump(Duration.ofHours(1)); // a pause far past the lease's deadline
                    }
                    return table.recordEffect(row, ctx, seq.incrementAndGet());
                }),
                clock,
                rounds,
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
        // the round that ran row 1 ended without starting another: its one lane found the deadline past
        await().until(() -> rounds.ended() >= 1);
        assertThat(table.effects()).isEqualTo(1);
        assertThat(table.count("status = 0")).isEqualTo(49);
        renewals.countDown();
        await().until(() -> table.count("status = 1") == 50);
        assertThat(table.duplicateEffects()).isZero();
        assertThat(engine.task("orders").stats().processed()).isEqualTo(50);
    }

    @Test
    void freshRowsAreServedBeforeFailedOnes() {
        Instant longAgo = Instant.now().minus(Duration.ofHours(1));
        table.insert(200, 1, longAgo);
        // rows 1-100 failed an hour ago and are due in their tier; rows 101-200 are fresh
        table.jdbc()
                .update(
                        "UPDATE tb_order SET retry_count = 1, updated_at = ? WHERE order_id <= 100",
                        Timestamp.from(longAgo));
        AtomicLong seq = new AtomicLong();
        engines.start(
                "node-a",
                dataSource,
                task().ordering(Ordering.NONE).pageSize(10).build(),
                (TaskHandler.PerRow) (row, ctx) -> table.recordEffect(row, ctx, seq.incrementAndGet()));
        await().until(() -> table.count("status = 1") == 200);
        Map<String, Object> order = table.jdbc()
                .queryForMap("SELECT MAX(CASE WHEN order_id > 100 THEN seq END) AS last_fresh,"
                        + " MIN(CASE WHEN order_id <= 100 THEN seq END) AS first_failed FROM effect");
        assertThat(((Number) order.get("LAST_FRESH")).longValue())
                .as("the last fresh row ran before the first failed one")
                .isLessThan(((Number) order.get("FIRST_FAILED")).longValue());
    }

    /** A clock whose monotonic reading can jump ahead, as after a long pause of the process. */
    static final class JumpingClock implements ScanClock {
        private final AtomicLong offset = new AtomicLong();

        void jump(Duration by) {
            offset.addAndGet(by.toNanos());
        }

        @Override
        public Instant now() {
            return Instant.now();
        }

        @Override
        public long nanos() {
            return System.nanoTime() + offset.get();
        }
    }
}
