package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.annotation.ScanTask;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanTasks;
import io.shardscan.core.SettableScanClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * An application's test as docs/guides/testing.md shows it: its own {@code ScanClock} bean, a {@link
 * SettableScanClock}, replaces the system clock, and moving it lets a tier's interval of an hour pass
 * at once. With the system clock the rows below would wait that hour.
 */
class SettableScanClockTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, ScanAutoConfiguration.class))
            .withUserConfiguration(ClockConfig.class)
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
    void aUsersClockBeanReplacesTheSystemClock() {
        runner.run(context -> assertThat(context)
                .getBean(ScanClock.class)
                .isInstanceOf(SettableScanClock.class)
                .isNotSameAs(ScanClock.system()));
    }

    @Test
    void advancingTheClockPastATiersIntervalHandlesTheRowsInsertedMeanwhile() {
        runner.run(context -> {
            SettableScanClock clock = context.getBean(SettableScanClock.class);
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
            // every shard has run a pass to its end: the next one is an hour away on the clock
            assertThat(context.getBean(ScanTasks.class).drain("order-sms", Duration.ofSeconds(10)))
                    .isZero();
            for (long id = 1; id <= 20; id++) {
                jdbc.update(
                        "INSERT INTO tb_order (order_id, user_id, updated_at) VALUES (?, ?, CURRENT_TIMESTAMP)",
                        id,
                        id % 7);
            }
            long probes =
                    context.getBean(ScanEngine.class).task("order-sms").stats().probes();

            clock.advance(Duration.ofHours(1));

            await().until(() ->
                    jdbc.queryForObject("SELECT COUNT(*) FROM tb_order WHERE status = 1", Integer.class) == 20);
            assertThat(context.getBean(Sms.class).sent).hasSize(20);
            assertThat(context.getBean(ScanEngine.class)
                            .task("order-sms")
                            .stats()
                            .probes())
                    .isGreaterThan(probes);
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class ClockConfig {

        @Bean
        SettableScanClock scanClock() {
            return new SettableScanClock(Instant.parse("2026-01-01T00:00:00Z"));
        }
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
