package io.shardscan.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.shardscan.annotation.ScanTask;
import io.shardscan.autoconfigure.ScanAutoConfiguration;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.SettableScanClock;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class ScanMetricsAutoConfigurationTests {

    private final DataSource dataSource =
            TestServers.h2("metrics_" + UUID.randomUUID().toString().replace("-", "_"));

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ScanAutoConfiguration.class, ScanMetricsAutoConfiguration.class))
            .withBean(DataSource.class, () -> dataSource)
            .withBean(OrderHandlers.class)
            .withPropertyValues(
                    "scan.lease-ttl=1s",
                    "scan.renew-interval=200ms",
                    "scan.tasks.orders.table=tb_order",
                    "scan.tasks.orders.id-column=order_id",
                    "scan.tasks.orders.shard-key-column=user_id",
                    "scan.tasks.orders.shards=8");

    private final ApplicationContextRunner withMetrics = runner.withConfiguration(AutoConfigurations.of(
            MetricsAutoConfiguration.class,
            SimpleMetricsExportAutoConfiguration.class,
            CompositeMeterRegistryAutoConfiguration.class));

    ScanMetricsAutoConfigurationTests() {
        new OrderTable(dataSource).recreate(8, true).insert(10, 3, Instant.parse("2026-01-01T00:00:00Z"));
    }

    @Test
    void bindsTheEnginesMetersAndListensToIt() {
        withMetrics.run(context -> {
            assertThat(context).hasSingleBean(ScanMetrics.class);
            assertThat(context.getBeansOfType(ScanListener.class)).containsValue(context.getBean(ScanMetrics.class));
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("scan.shards.owned").tag("task", "orders").gauge())
                    .isNotNull();
            assertThat(registry.get("scan.backlog").tags("task", "orders").gauges())
                    .hasSize(3);
        });
    }

    /**
     * The lag gauge reads the background counter's last count and ages it by the application's
     * {@link ScanClock}, which stamped it: here a settable one, so the age moves only when the test moves it.
     */
    @Test
    void agesTheLagGaugeByTheApplicationsScanClock() {
        OrderTable table = new OrderTable(dataSource);
        // failed once a minute ago, resting an hour: pending for the whole test
        table.jdbc().update("UPDATE tb_order SET retry_count = 1");
        table.updatedAgo("order_id > 0", Duration.ofSeconds(60));
        SettableScanClock clock = new SettableScanClock(Instant.parse("2026-01-01T00:00:00Z"));
        withMetrics
                .withBean(ScanClock.class, () -> clock)
                .withPropertyValues(
                        "scan.backlog-refresh=1h",
                        "scan.tasks.orders.tiers[0].retries=0",
                        "scan.tasks.orders.tiers[0].interval=1s",
                        "scan.tasks.orders.tiers[1].retries=1-5",
                        "scan.tasks.orders.tiers[1].interval=1h")
                .run(context -> {
                    ScanBacklogs backlogs = context.getBean(ScanBacklogs.class);
                    await().until(() -> backlogs.count("orders") != null);
                    assertThat(backlogs.count("orders").takenAt()).isEqualTo(clock.now());
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    double counted = registry.get("scan.backlog.oldest.age")
                            .tags("task", "orders", "tier", "1-5")
                            .gauge()
                            .value();
                    assertThat(counted).isBetween(60.0, 120.0);
                    clock.advance(Duration.ofSeconds(90));
                    assertThat(registry.get("scan.backlog.oldest.age")
                                    .tags("task", "orders", "tier", "1-5")
                                    .gauge()
                                    .value())
                            .isEqualTo(counted + 90);
                });
    }

    @Test
    void backsOffWithoutMeterRegistry() {
        runner.run(
                context -> assertThat(context).hasSingleBean(ScanEngine.class).doesNotHaveBean(ScanMetrics.class));
    }

    @Test
    void backsOffWithoutMicrometer() {
        withMetrics.withClassLoader(new FilteredClassLoader("io.micrometer")).run(context -> assertThat(context)
                .hasSingleBean(ScanEngine.class)
                .doesNotHaveBean(ScanMetrics.class));
    }

    @Test
    void backsOffWhenScanIsDisabled() {
        withMetrics.withPropertyValues("scan.enabled=false").run(context -> assertThat(context)
                .hasSingleBean(MeterRegistry.class)
                .doesNotHaveBean(ScanMetrics.class));
    }

    @Test
    void keepsUserDefinedMetrics() {
        ScanMetrics own = new ScanMetrics(() -> null, task -> null);
        withMetrics
                .withBean(ScanMetrics.class, () -> own)
                .run(context -> assertThat(context).getBean(ScanMetrics.class).isSameAs(own));
    }

    static class OrderHandlers {
        @ScanTask("orders")
        public void send(OrderRow order) {}
    }

    record OrderRow(long orderId, long userId) {}
}
