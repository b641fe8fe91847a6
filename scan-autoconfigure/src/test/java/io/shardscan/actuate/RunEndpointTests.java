package io.shardscan.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.ScanTasks;
import io.shardscan.core.TaskView;
import io.shardscan.core.spi.TaskRun;
import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.testsupport.CuttableCoordinator;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * What an operator sees of an {@code until-empty} task, on H2: its run in {@code /actuator/scan}
 * and the gauges, the {@code start} action, and a health that stays UP once the run is done,
 * whatever the coordinator does meanwhile.
 */
class RunEndpointTests {

    @RegisterExtension
    final Engines engines = new Engines();

    final DataSource dataSource = TestServers.h2("run_endpoint");
    final OrderTable table = new OrderTable(dataSource).recreate(4, true).coordinationTables();
    final CuttableCoordinator coordinator = new CuttableCoordinator(new JdbcShardCoordinator(dataSource));

    TaskDefinition task(RunMode run) {
        return TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(4)
                .tiers(List.of(Tier.of("0", Duration.ofMillis(200))))
                .run(run)
                .build();
    }

    ScanEngine start(String node, RunMode run) {
        return engines.start(
                node,
                dataSource,
                coordinator,
                new ScanEngine.ScanTask(task(run), (TaskHandler.PerRow) (row, ctx) -> null),
                ScanClock.system(),
                ScanListener.NONE,
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
    }

    @Test
    void showsTheRunStartsANewOneAndStaysUpOnceDone() {
        table.insert(50, 10, Instant.now());
        ScanEngine engine = start("node-1", RunMode.UNTIL_EMPTY);
        ScanEndpoint endpoint = new ScanEndpoint(engine, new ScanBacklogs(engine, Duration.ofMinutes(1)), true);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new ScanMetrics(() -> engine, name -> null).bindTo(registry);
        await().until(() -> engine.task("orders").state() == TaskView.State.DONE);

        RunDescriptor run = endpoint.task("orders").run();
        assertThat(run).isNotNull();
        assertThat(run.mode()).isEqualTo("until-empty");
        assertThat(run.id()).isEqualTo(1);
        assertThat(run.state()).isEqualTo(TaskRun.State.DONE);
        assertThat(run.processed()).isEqualTo(50);
        assertThat(run.dead()).isZero();
        assertThat(run.endedBy()).isEqualTo("node-1");
        assertThat(run.durationSeconds()).isGreaterThanOrEqualTo(0);
        assertThat(endpoint.scan().tasks().get("orders").state()).isEqualTo(TaskView.State.DONE);
        assertThat(new ScanTasks(engine).drain("orders", Duration.ofSeconds(5)))
                .as("a done task starts no round, so a drain returns at once")
                .isZero();
        assertThat(registry.get("scan.run.done").tag("task", "orders").gauge().value())
                .isEqualTo(1);
        assertThat(registry.get("scan.run.id").tag("task", "orders").gauge().value())
                .isEqualTo(1);

        // done, the task is no reason to take the node out of service, even with its coordinator gone
        ScanHealthIndicator health = new ScanHealthIndicator(engine);
        coordinator.cut();
        await().until(() -> !engine.task("orders").coordinatorReachable());
        Health seen = health.health(true);
        assertThat(seen.getStatus()).isEqualTo(Status.UP);
        @SuppressWarnings("unchecked")
        Map<String, Object> details =
                (Map<String, Object>) ((Map<String, Object>) seen.getDetails().get("tasks")).get("orders");
        assertThat(details).containsEntry("runState", TaskRun.State.DONE).containsEntry("run", 1L);
        coordinator.heal();

        table.insert(51, 20, 10, Instant.now());
        WebEndpointResponse<Object> started =
                new ScanEndpointWebExtension(endpoint).act("orders", "start", null, SecurityContext.NONE);
        assertThat(started.getStatus()).isEqualTo(200);
        assertThat(((ActionDescriptor) started.getBody()).run()).isEqualTo(2);
        await().until(() ->
                engine.task("orders").run().id() == 2 && engine.task("orders").state() == TaskView.State.DONE);
        assertThat(endpoint.task("orders").run().processed()).isEqualTo(20);
        assertThat(registry.get("scan.run.id").tag("task", "orders").gauge().value())
                .isEqualTo(2);
    }

    @Test
    void aTaskThatRunsForeverHasNoRunToStart() {
        ScanEngine engine = start("node-1", RunMode.FOREVER);
        ScanEndpoint endpoint = new ScanEndpoint(engine, new ScanBacklogs(engine, Duration.ofMinutes(1)), true);
        WebEndpointResponse<Object> refused =
                new ScanEndpointWebExtension(endpoint).act("orders", "start", null, SecurityContext.NONE);
        assertThat(refused.getStatus()).isEqualTo(400);
        assertThat(((ScanEndpointWebExtension.Refusal) refused.getBody()).message())
                .contains("task orders runs forever (scan.tasks.orders.run)")
                .contains("run: until-empty");
        assertThat(endpoint.task("orders").run()).isNull();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new ScanMetrics(() -> engine, name -> null).bindTo(registry);
        assertThat(registry.find("scan.run.done").gauge()).isNull();
    }
}
