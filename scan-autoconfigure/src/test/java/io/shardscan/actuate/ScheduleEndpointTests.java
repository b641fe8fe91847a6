package io.shardscan.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.SettableScanClock;
import io.shardscan.core.TaskView;
import io.shardscan.core.spi.TaskRun;
import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.Schedule;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.json.JsonMapper;

/**
 * What an operator sees of a scheduled task, on H2 with a settable clock: its schedule, next firing and
 * last firing in {@code /actuator/scan}, run 0 before the first firing, and the firings counter.
 */
class ScheduleEndpointTests {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:30Z");

    @RegisterExtension
    final Engines engines = new Engines();

    final DataSource dataSource = TestServers.h2("schedule_endpoint");
    final OrderTable table = new OrderTable(dataSource).recreate(4, true).coordinationTables();
    final SettableScanClock clock = new SettableScanClock(T0);

    @Test
    void showsTheScheduleItsNextAndItsLastFiring() {
        TaskDefinition task = TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(4)
                .tiers(List.of(Tier.of("0", Duration.ofMillis(200))))
                .run(RunMode.UNTIL_EMPTY)
                .schedule(Schedule.every(Duration.ofHours(1)))
                .build();
        table.insert(20, 5, Instant.now());
        ScanEngine engine = engines.start(
                "node-1",
                dataSource,
                new JdbcShardCoordinator(dataSource),
                new ScanEngine.ScanTask(task, (TaskHandler.PerRow) (row, ctx) -> null),
                clock,
                ScanListener.NONE,
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
        ScanEndpoint endpoint = new ScanEndpoint(engine, new ScanBacklogs(engine, Duration.ofMinutes(1)), true);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new ScanMetrics(() -> engine, name -> null).bindTo(registry);
        await().until(() -> engine.task("orders").run() != null);

        TaskDescriptor before = endpoint.scan().tasks().get("orders");
        assertThat(before.state()).isEqualTo(TaskView.State.DONE);
        assertThat(before.run().id())
                .as("run 0: nothing ran before the first firing")
                .isZero();
        assertThat(before.schedule())
                .isEqualTo(new ScheduleDescriptor(
                        "every 1h", Instant.parse("2026-01-01T01:00:00Z"), null, null, null, 0, 0));

        clock.advance(Duration.ofHours(1));
        await().until(() ->
                engine.task("orders").run().id() == 1 && engine.task("orders").state() == TaskView.State.DONE);
        ScheduleDescriptor after = endpoint.task("orders").schedule();
        assertThat(after.nextFiring()).isEqualTo(Instant.parse("2026-01-01T02:00:00Z"));
        assertThat(after.lastFiring()).isEqualTo("started");
        assertThat(after.lastFiredBy()).isEqualTo("node-1");
        assertThat(after.lastFiredAt()).isAfterOrEqualTo(Instant.parse("2026-01-01T01:00:00Z"));
        assertThat(after.startedHere()).isEqualTo(1);
        assertThat(endpoint.task("orders").run().state()).isEqualTo(TaskRun.State.DONE);
        assertThat(endpoint.task("orders").run().processed()).isEqualTo(20);
        assertThat(registry.get("scan.schedule.firings")
                        .tags("task", "orders", "outcome", "started")
                        .functionCounter()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get("scan.schedule.firings")
                        .tags("task", "orders", "outcome", "skipped")
                        .functionCounter()
                        .count())
                .isZero();
        String json = JsonMapper.builder()
                .build()
                .writeValueAsString(endpoint.task("orders").schedule());
        assertThat(json).contains("\"schedule\":\"every 1h\"", "\"lastFiring\":\"started\"", "\"nextFiring\":");
    }
}
