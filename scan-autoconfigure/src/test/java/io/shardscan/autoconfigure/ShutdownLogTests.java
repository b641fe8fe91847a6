package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.annotation.ScanTask;
import io.shardscan.core.ScanEngine;
import java.io.IOException;
import java.util.logging.LogManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

/**
 * A real application's shutdown: the engine's lines about what it released reach the application's
 * log, though java.util.logging resets itself as the JVM starts to shut down (its shutdown hook runs
 * beside Spring Boot's, which closes the context).
 */
@ExtendWith(OutputCaptureExtension.class)
class ShutdownLogTests {

    @Test
    void shutdownSaysWhatItReleasedInTheApplicationsLog(CapturedOutput output) throws IOException {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                .properties(
                        "spring.main.web-application-type=none",
                        "spring.jmx.enabled=false",
                        "spring.datasource.url=" + OrderDatabase.create(),
                        "scan.node-id=node-shutdown",
                        "scan.tasks.orders.table=tb_order",
                        "scan.tasks.orders.id-column=order_id",
                        "scan.tasks.orders.shard-key-column=user_id",
                        "scan.tasks.orders.shards=4")
                .run();
        assertThat(output.getOut() + output.getErr()).contains("Shardscan node node-shutdown started tasks [orders]");
        // all four held before the stop: a stop during the first tick's claims releases what was held then
        // (a busy run stopped with three, and the fourth was given back by the claim)
        ScanEngine engine = context.getBean(ScanEngine.class);
        await().until(() -> engine.task("orders").ownedShards().size() == 4);

        LogManager.getLogManager().reset(); // what java.util.logging's own shutdown hook does
        try {
            context.close();
        } finally {
            LogManager.getLogManager().readConfiguration();
        }

        assertThat(output.getOut() + output.getErr())
                .contains("Task orders: stopped; released shards [0, 1, 2, 3] and left the members")
                .contains("Shardscan node node-shutdown stopped");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Handler.class)
    static class App {}

    record Order(long orderId, long userId) {}

    static class Handler {
        @ScanTask("orders")
        public void send(Order order) {}
    }
}
