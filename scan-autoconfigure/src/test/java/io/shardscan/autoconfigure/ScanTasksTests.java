package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardscan.annotation.ScanTask;
import io.shardscan.core.ScanTasks;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * An application's test drives a task with {@link ScanTasks}: rows inserted after the engine's
 * first pass are handled by a drain at once, though the task's tiers would not look again for an
 * hour, and the drain returns only when they are done.
 */
class ScanTasksTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, ScanAutoConfiguration.class))
            .withBean(Sms.class)
            .withPropertyValues(
                    "spring.datasource.url=" + OrderDatabase.create(),
                    "scan.tasks.order-sms.table=tb_order",
                    "scan.tasks.order-sms.id-column=order_id",
                    "scan.tasks.order-sms.shard-key-column=user_id",
                    "scan.tasks.order-sms.shards=4",
                    "scan.tasks.order-sms.tiers[0].retries=0",
                    "scan.tasks.order-sms.tiers[0].interval=1h",
                    "scan.tasks.order-sms.tiers[1].retries=1-3",
                    "scan.tasks.order-sms.tiers[1].interval=1h");

    @Test
    void drainHandlesEveryDueRowBeforeItReturns() {
        runner.run(context -> {
            ScanTasks tasks = context.getBean(ScanTasks.class);
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
            assertThat(tasks.drain("order-sms", Duration.ofSeconds(10))).isZero();
            for (long id = 1; id <= 300; id++) {
                jdbc.update(
                        "INSERT INTO tb_order (order_id, user_id, updated_at) VALUES (?, ?, CURRENT_TIMESTAMP)",
                        id,
                        id % 17);
            }
            Map<String, Long> handled = tasks.drainAll(Duration.ofSeconds(10));

            // every row done once it returns; its count may miss rows a probe found during the inserts
            assertThat(handled).containsOnlyKeys("order-sms");
            assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM tb_order WHERE status = 1", Integer.class))
                    .isEqualTo(300);
            assertThat(context.getBean(Sms.class).sent).hasSize(300);
            assertThatThrownBy(() -> tasks.drain("no-such-task", Duration.ofSeconds(1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("no task 'no-such-task'");
        });
    }

    static class Sms {
        final List<Long> sent = new CopyOnWriteArrayList<>();

        @ScanTask("order-sms")
        public void send(OrderRow order) {
            sent.add(order.orderId());
        }
    }

    record OrderRow(long orderId, long userId) {}
}
