package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardscan.actuate.ScanEndpoint;
import io.shardscan.actuate.ScanEndpointAutoConfiguration;
import io.shardscan.annotation.ScanTask;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanTasks;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Tasks pinned to nodes (seed 003: servers that differ): a node runs a task only when its
 * {@code scan.tasks.X.enabled} is true and it has every tag of {@code node-tags}; a task it does not
 * run is checked as the others, logged at start, listed with why in {@code /actuator/scan}, and named
 * with why when asked for.
 */
class TaskPlacementTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    ScanAutoConfiguration.class,
                    ScanEndpointAutoConfiguration.class))
            .withBean(Orders.class)
            .withPropertyValues(
                    "spring.datasource.url=" + OrderDatabase.create(),
                    "management.endpoints.web.exposure.include=scan",
                    "scan.tasks.orders.table=tb_order",
                    "scan.tasks.orders.id-column=order_id",
                    "scan.tasks.orders.shard-key-column=user_id");

    @Test
    void aNodeWithoutTheTaskTagsDoesNotRunItAndSaysWhy() {
        runner.withPropertyValues("scan.node-tags=small,eu", "scan.tasks.orders.node-tags=big")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ScanEngine engine = context.getBean(ScanEngine.class);
                    assertThat(engine.taskNames()).doesNotContain("orders");
                    String why = "scan.tasks.orders.node-tags requires [big] and this node's scan.node-tags are"
                            + " [small, eu] (missing [big]); the nodes that have them run it";
                    assertThat(context.getBean(ScanEndpoint.class).scan().notRunHere())
                            .containsExactly(org.assertj.core.api.Assertions.entry("orders", why));
                    assertThatThrownBy(() -> context.getBean(ScanTasks.class).start("orders"))
                            .hasMessage("task 'orders' is not run on this node: " + why);
                });
    }

    @Test
    void aNodeWithEveryTagRunsIt() {
        runner.withPropertyValues("scan.node-tags=big,eu", "scan.tasks.orders.node-tags=big,eu")
                .run(context -> {
                    assertThat(context.getBean(ScanEngine.class).taskNames()).contains("orders");
                    assertThat(context.getBean(ScanEndpoint.class).scan().notRunHere())
                            .isEmpty();
                });
    }

    @Test
    void aTaskDisabledOnThisNodeIsLeftToTheOthers() {
        runner.withPropertyValues("scan.tasks.orders.enabled=false").run(context -> {
            assertThat(context.getBean(ScanEngine.class).taskNames()).doesNotContain("orders");
            assertThat(context.getBean(ScanEndpoint.class).scan().notRunHere())
                    .containsEntry(
                            "orders",
                            "scan.tasks.orders.enabled is false on this node; the nodes where it is true run it");
        });
    }

    @Test
    void aTaskNotRunHereIsStillChecked() {
        runner.withPropertyValues("scan.tasks.orders.enabled=false", "scan.tasks.orders.page-size=0")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasMessageContaining("scan.tasks.orders.page-size must be at least 1"));
    }

    static class Orders {
        @ScanTask("orders")
        public void send(Order order) {}
    }

    record Order(long orderId, long userId) {}
}
