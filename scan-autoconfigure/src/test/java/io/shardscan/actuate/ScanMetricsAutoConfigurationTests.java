package io.shardscan.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.shardscan.annotation.ScanTask;
import io.shardscan.autoconfigure.ScanAutoConfiguration;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
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
