package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.task.Ordering;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Seed 001's acceptNum = max - active: the task's free workers are shared out among the shards due
 * at once, so one due shard does not take them all and run its whole page on them while another
 * shard waits a round.
 */
class FreeWorkerShareTests {

    @RegisterExtension
    final Engines engines = new Engines();

    final DataSource dataSource = TestServers.h2("free_worker_share");
    final OrderTable table = new OrderTable(dataSource).recreate(2, true).coordinationTables();

    @Test
    void twoDueShardsShareTheFreeWorkers() {
        // keys 0-3: two keys on each of the two shards, 10 rows each
        table.insert(40, 4, Instant.now().minusSeconds(5));
        CountDownLatch[] started = {new CountDownLatch(1), new CountDownLatch(1)};
        AtomicInteger starved = new AtomicInteger();
        TaskHandler.PerRow handler = (row, ctx) -> {
            int shard = ctx.shard();
            started[shard].countDown();
            // a row of each shard in flight at once: only when the two workers went one to each shard
            if (!started[1 - shard].await(TestTime.scaled(Duration.ofSeconds(5)).toMillis(), TimeUnit.MILLISECONDS)) {
                starved.incrementAndGet();
            }
            return table.recordEffect(row, ctx, 0);
        };
        TaskDefinition task = TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(2)
                .ordering(Ordering.PER_KEY)
                .pageSize(50)
                .workers(2)
                .build();
        engines.start("node-a", dataSource, task, handler);

        await().atMost(TestTime.scaled(Duration.ofSeconds(60))).until(() -> table.count("status = 1") == 40);
        assertThat(starved)
                .as("rows that waited for the other shard, which got no worker while this one held both")
                .hasValue(0);
    }
}
