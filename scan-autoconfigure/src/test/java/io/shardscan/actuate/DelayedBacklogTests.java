package io.shardscan.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.annotation.ScanTask;
import io.shardscan.autoconfigure.ScanAutoConfiguration;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * {@code /actuator/scan} of a task with a due-at column: the rows due now are handled, those due
 * tomorrow stay pending and the backlog shows them as not yet due, those without a due time apart
 * (startup warns of them).
 */
@ExtendWith(OutputCaptureExtension.class)
class DelayedBacklogTests {

    private static final JdbcEndpoint DB = TestServers.h2Endpoint("delayed_backlog");

    @Test
    void backlogShowsRowsNotYetDueApartFromDueOnesAndThoseWithoutDueTime(CapturedOutput output) {
        OrderTable table = new OrderTable(TestServers.h2("delayed_backlog"))
                .recreate(8, true)
                .withDueAt(8)
                .insert(30, 7, Instant.now());
        table.jdbc()
                .update(
                        "UPDATE tb_order SET due_at = ?",
                        Timestamp.from(Instant.now().plus(Duration.ofDays(1))));
        table.jdbc()
                .update(
                        "UPDATE tb_order SET due_at = ? WHERE order_id <= 10",
                        Timestamp.from(Instant.now().minus(Duration.ofHours(1))));
        table.insert(31, 3, 7, Instant.now()); // due_at NULL: never due
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        ScanAutoConfiguration.class,
                        ScanEndpointAutoConfiguration.class))
                .withBean(Orders.class)
                .withPropertyValues(
                        "spring.datasource.url=" + DB.url(),
                        "spring.datasource.username=" + DB.user(),
                        "management.endpoints.web.exposure.include=scan",
                        "scan.backlog-refresh=200ms",
                        "scan.tasks.orders.table=tb_order",
                        "scan.tasks.orders.id-column=order_id",
                        "scan.tasks.orders.shard-key-column=user_id",
                        "scan.tasks.orders.shards=8",
                        "scan.tasks.orders.due-at-column=due_at",
                        "scan.tasks.orders.index-check=fail")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(output.getOut() + output.getErr())
                            .contains("scan.tasks.orders: 3 pending rows of tb_order have a NULL due time (due_at);"
                                    + " they are never due")
                            .contains("UPDATE tb_order SET due_at = updated_at WHERE due_at IS NULL");
                    await().until(() -> table.count("status = 1") == 10);
                    ScanEndpoint endpoint = context.getBean(ScanEndpoint.class);
                    await().untilAsserted(() -> {
                        BacklogDescriptor backlog =
                                endpoint.scan().tasks().get("orders").backlog();
                        assertThat(backlog).isNotNull();
                        assertThat(backlog.total()).isEqualTo(23);
                        assertThat(backlog.notYetDue()).isEqualTo(20);
                        assertThat(backlog.withoutDueTime()).isEqualTo(3);
                        assertThat(backlog.tiers().get(0).pending()).isEqualTo(23);
                        assertThat(backlog.tiers().get(0).notYetDue()).isEqualTo(20);
                    });
                    assertThat(table.count("status = 0 AND order_id > 10")).isEqualTo(23);
                });
    }

    static class Orders {
        @ScanTask("orders")
        public void send(Map<String, Object> order) {}
    }
}
