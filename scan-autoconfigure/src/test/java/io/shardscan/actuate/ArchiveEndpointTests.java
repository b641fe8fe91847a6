package io.shardscan.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.shardscan.annotation.ScanTask;
import io.shardscan.autoconfigure.ScanAutoConfiguration;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * What {@code /actuator/scan} and the {@code scan.archived} counter show of archiving, on H2 with
 * the archive table docs/guides/archiving.md gives for H2: 30 done rows a year old are moved.
 */
class ArchiveEndpointTests {

    private static final JdbcEndpoint DB = TestServers.h2Endpoint("archive_endpoint");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    ScanAutoConfiguration.class,
                    ScanEndpointAutoConfiguration.class,
                    MetricsAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class,
                    CompositeMeterRegistryAutoConfiguration.class,
                    ScanMetricsAutoConfiguration.class))
            .withBean(Orders.class)
            .withPropertyValues(
                    "spring.datasource.url=" + DB.url(),
                    "spring.datasource.username=" + DB.user(),
                    "management.endpoints.web.exposure.include=scan",
                    "scan.tasks.orders.table=tb_order",
                    "scan.tasks.orders.id-column=order_id",
                    "scan.tasks.orders.shard-key-column=user_id",
                    "scan.tasks.orders.shards=8");

    @Test
    void showsWhatWasArchivedAndCountsIt() {
        OrderTable table = new OrderTable(TestServers.h2("archive_endpoint"))
                .recreate(8, true)
                .insert(30, 7, Instant.parse("2025-01-01T00:00:00Z"));
        table.jdbc().update("UPDATE tb_order SET status = 1");
        table.jdbc().execute("DROP TABLE IF EXISTS tb_order_archive");
        table.jdbc().execute("CREATE TABLE tb_order_archive AS SELECT * FROM tb_order WITH NO DATA");
        table.jdbc().execute("ALTER TABLE tb_order_archive ALTER COLUMN order_id SET NOT NULL");
        table.jdbc().execute("ALTER TABLE tb_order_archive ADD PRIMARY KEY (order_id)");
        table.jdbc().execute("CREATE INDEX tb_order_finished_idx ON tb_order (status, scan_shard, updated_at)");
        runner.withPropertyValues(
                        "scan.tasks.orders.archive.after=30d", "scan.tasks.orders.archive.to=tb_order_archive")
                .run(context -> {
                    ScanEndpoint endpoint = context.getBean(ScanEndpoint.class);
                    await().until(() -> endpoint.task("orders").archive().rows() == 30);
                    ArchiveDescriptor archive = endpoint.task("orders").archive();
                    assertThat(archive.to()).isEqualTo("tb_order_archive");
                    assertThat(archive.after()).isEqualTo("PT720H");
                    assertThat(archive.includeDead()).isFalse();
                    assertThat(archive.lastRunAt()).isNotNull();
                    assertThat(endpoint.scan().tasks().get("orders").archive()).isEqualTo(archive);
                    assertThat(context.getBean(MeterRegistry.class)
                                    .get("scan.archived")
                                    .tag("task", "orders")
                                    .functionCounter()
                                    .count())
                            .isEqualTo(30);
                    assertThat(table.count("1 = 1")).isZero();
                });
    }

    @Test
    void showsNoArchiveForATaskThatDoesNotArchive() {
        new OrderTable(TestServers.h2("archive_endpoint")).recreate(8, true);
        runner.run(context -> {
            assertThat(context.getBean(ScanEndpoint.class).task("orders").archive())
                    .isNull();
            assertThat(context.getBean(MeterRegistry.class)
                            .get("scan.archived")
                            .tag("task", "orders")
                            .functionCounter()
                            .count())
                    .isZero();
        });
    }

    static class Orders {
        @ScanTask("orders")
        public void send(Map<String, Object> order) {}
    }
}
