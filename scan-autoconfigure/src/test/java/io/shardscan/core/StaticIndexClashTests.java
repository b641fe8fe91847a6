package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.actuate.ScanHealthIndicator;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.health.contributor.Status;

/**
 * Two static nodes given the same {@code scan.node-index} (a copied configuration) own the same
 * shards and fence each other off: each names the real cause, the shared index, not another
 * coordinator, in its ERROR line and its health.
 */
class StaticIndexClashTests {

    static final int SHARDS = 4;

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final CapturedLog coreLog = new CapturedLog("io.shardscan.core");

    final DataSource dataSource = TestServers.h2("static_clash");

    @Test
    void twoNodesWithOneIndexAreToldToGiveEachNodeItsOwn() {
        OrderTable table = new OrderTable(dataSource).recreate(SHARDS, true).coordinationTables();
        table.insert(20_000, 2_000, Instant.now().minusSeconds(5));
        TaskDefinition task = TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS)
                .pageSize(20)
                .build();
        TaskHandler.PerRow slow = (row, ctx) -> {
            Thread.sleep(1); // simulated work: a handler that takes a while
            return Outcome.done();
        };
        ScanEngine a = start("node-a", task, slow);
        ScanEngine b = start("node-b", task, slow);

        await().atMost(TestTime.scaled(Duration.ofSeconds(60)))
                .until(() -> a.task("orders").stats().foreignFences()
                                + b.task("orders").stats().foreignFences()
                        > 0);
        assertThat(coreLog.messages(java.util.logging.Level.SEVERE))
                .anyMatch(e -> e.contains("coordinator (static")
                        && e.contains("two nodes share a scan.node-index")
                        && e.contains("Give every node its own scan.node-index"))
                .noneMatch(e -> e.contains("spring.data.redis"));
        ScanEngine fenced = a.task("orders").stats().foreignFences() > 0 ? a : b;
        var health = new ScanHealthIndicator(fenced).health(true);
        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        @SuppressWarnings("unchecked")
        Map<String, Object> tasks = (Map<String, Object>) health.getDetails().get("tasks");
        assertThat(String.valueOf(tasks.get("orders"))).contains("two nodes share a scan.node-index");
    }

    private ScanEngine start(String node, TaskDefinition task, TaskHandler handler) {
        return engines.start(
                node,
                dataSource,
                new StaticShardCoordinator(0, 1, ScanClock.system()),
                new ScanEngine.ScanTask(task, handler),
                ScanClock.system(),
                ScanListener.NONE,
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
    }
}
