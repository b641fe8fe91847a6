package io.shardscan.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

import io.shardscan.annotation.ScanTask;
import io.shardscan.autoconfigure.ScanAutoConfiguration;
import io.shardscan.core.Backlog;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** When the scan endpoint and its backlog counter are registered, one condition per test. */
class ScanEndpointAutoConfigurationTests {

    private static final JdbcEndpoint DB = TestServers.h2Endpoint("endpoint_conditions");

    static {
        // dead rows: the engine leaves them alone, so the count stays put
        new OrderTable(TestServers.h2("endpoint_conditions"))
                .recreate(8, true)
                .insert(30, 7, Instant.now())
                .jdbc()
                .update("UPDATE tb_order SET status = 2");
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    ScanAutoConfiguration.class,
                    ScanEndpointAutoConfiguration.class))
            .withBean(Orders.class)
            .withPropertyValues(
                    "spring.datasource.url=" + DB.url(),
                    "spring.datasource.username=" + DB.user(),
                    "scan.node-id=solo",
                    "scan.backlog-refresh=200ms",
                    "scan.tasks.orders.table=tb_order",
                    "scan.tasks.orders.id-column=order_id",
                    "scan.tasks.orders.shard-key-column=user_id",
                    "scan.tasks.orders.shards=8");

    @Test
    void registersEndpointWebExtensionAndBacklogsWhenExposedOverHttp() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=scan")
                .run(context -> assertThat(context)
                        .hasSingleBean(ScanEndpoint.class)
                        .hasSingleBean(ScanEndpointWebExtension.class)
                        .hasSingleBean(ScanBacklogs.class));
    }

    @Test
    void registersNoWebExtensionWhenExposedOverJmxOnly() {
        runner.withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=scan")
                .run(context -> assertThat(context)
                        .hasSingleBean(ScanEndpoint.class)
                        .doesNotHaveBean(ScanEndpointWebExtension.class));
    }

    @Test
    void registersNothingWhenNotExposed() {
        runner.run(context ->
                assertThat(context).doesNotHaveBean(ScanEndpoint.class).doesNotHaveBean(ScanBacklogs.class));
    }

    @Test
    void registersNothingWhenAccessIsNone() {
        runner.withPropertyValues(
                        "management.endpoints.web.exposure.include=scan", "management.endpoint.scan.access=NONE")
                .run(context -> assertThat(context).doesNotHaveBean(ScanEndpoint.class));
    }

    @Test
    void registersNothingWithoutAScanEngine() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=scan", "scan.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(ScanEndpoint.class));
    }

    @Test
    void countsTheBacklogInTheBackgroundAndServesTheLastCount() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=scan")
                .run(context -> {
                    ScanBacklogs backlogs = context.getBean(ScanBacklogs.class);
                    await().until(() -> backlogs.backlog("orders") != null);
                    Backlog backlog = backlogs.backlog("orders");
                    assertThat(backlog.dead()).isEqualTo(30);
                    assertThat(backlog.total()).isZero();
                    await().until(() -> backlogs.backlog("orders").countedAt().isAfter(backlog.countedAt()));
                    assertThat(backlogs.backlog("nope")).isNull();
                    ScanDescriptor scan = context.getBean(ScanEndpoint.class).scan();
                    assertThat(scan.tasks().get("orders").backlog().dead()).isEqualTo(30);
                    assertThat(scan.tasks().get("orders").ownership()).hasSize(8);
                });
    }

    @Test
    void refusesWritesOverJmxUnlessEnabled() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=scan")
                .run(context -> assertThatIllegalStateException()
                        .isThrownBy(() ->
                                context.getBean(ScanEndpoint.class).act("orders", "pause", null, SecurityContext.NONE))
                        .withMessageContaining("management.endpoint.scan.access=unrestricted"));
        runner.withPropertyValues(
                        "management.endpoints.web.exposure.include=scan",
                        "management.endpoint.scan.access=UNRESTRICTED")
                .run(context -> {
                    ScanEndpoint endpoint = context.getBean(ScanEndpoint.class);
                    assertThatIllegalArgumentException()
                            .isThrownBy(() -> endpoint.act("orders", "explode", null, SecurityContext.NONE))
                            .withMessageContaining("requeue-dead");
                    assertThat(endpoint.act("orders", "pause", null, SecurityContext.NONE)
                                    .state())
                            .hasToString("PAUSED");
                    assertThat(endpoint.task("nope")).isNull();
                });
    }

    /** Does nothing; the table holds only dead rows. */
    static class Orders {
        @ScanTask("orders")
        public void send(Map<String, Object> order) {}
    }
}
