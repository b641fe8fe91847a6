package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardscan.annotation.ScanTask;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Import;

/**
 * A real web application with a bad table fails while its beans are created: Tomcat never starts,
 * and the log shows Boot's "APPLICATION FAILED TO START" block with Shardscan's description and
 * action instead of a stack trace.
 */
@ExtendWith(OutputCaptureExtension.class)
class WebStartupFailureTests {

    @Test
    void badTableFailsBeforeTheWebServerStartsInBootsForm(CapturedOutput output) throws Exception {
        String url = OrderDatabase.create();
        try (Connection connection = DriverManager.getConnection(url, "sa", "");
                Statement statement = connection.createStatement()) {
            statement.execute("ALTER TABLE tb_order ALTER COLUMN status VARCHAR(16)");
        }
        List<WebServerInitializedEvent> started = new CopyOnWriteArrayList<>();
        SpringApplicationBuilder app = new SpringApplicationBuilder(WebApp.class)
                .listeners((ApplicationListener<WebServerInitializedEvent>) started::add)
                .properties(
                        "server.port=0",
                        "spring.jmx.enabled=false",
                        "spring.datasource.url=" + url,
                        "scan.tasks.orders.table=tb_order",
                        "scan.tasks.orders.id-column=order_id",
                        "scan.tasks.orders.shard-key-column=user_id");

        assertThatThrownBy(app::run).hasRootCauseInstanceOf(io.shardscan.core.task.InvalidTaskException.class);

        assertThat(started).as("web servers started").isEmpty();
        assertThat(output.getOut() + output.getErr())
                .doesNotContain("Tomcat started on port")
                .contains("APPLICATION FAILED TO START")
                .contains("Description:")
                .contains("Shardscan cannot start:")
                .containsIgnoringCase("column status (scan.tasks.orders.status-column) is of type")
                .contains("Action:")
                .doesNotContain("\tat io.shardscan.");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Handler.class)
    static class WebApp {}

    record Order(long orderId, long userId) {}

    static class Handler {
        @ScanTask("orders")
        public void send(Order order) {}
    }
}
