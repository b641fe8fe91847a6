package io.shardscan.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.annotation.ScanTask;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.task.ScanContext;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.RedisServerHandle;
import io.shardscan.testsupport.TestServers;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A Spring Boot application with Tomcat, Actuator and one scan task on {@code tb_order} of the
 * PostgreSQL database {@code endpoint}, leased through the tests' Redis, reached over real HTTP.
 */
final class EndpointNode implements AutoCloseable {

    static final String TASK = "endpoint-orders";
    static final int SHARDS = 64;

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final ConfigurableApplicationContext context;
    private final int port;

    private EndpointNode(ConfigurableApplicationContext context) {
        this.context = context;
        this.port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
    }

    /** Starts node {@code id}; only a node with writes enabled also exposes the endpoint over JMX. */
    static EndpointNode start(String id, boolean writeEnabled) {
        JdbcEndpoint db = TestServers.postgresEndpoint("endpoint");
        RedisServerHandle redis = TestServers.redis();
        String task = "scan.tasks." + TASK + ".";
        SpringApplicationBuilder node = new SpringApplicationBuilder(TestApp.class);
        if (writeEnabled) {
            // unset, Shardscan takes the access as read-only, and a write gets a 403 naming this property
            node.properties("management.endpoint.scan.access=unrestricted");
        }
        return new EndpointNode(node.properties(
                        "server.port=0",
                        "management.endpoints.web.exposure.include=scan,health",
                        "spring.jmx.enabled=" + writeEnabled,
                        "management.endpoints.jmx.exposure.include=scan",
                        "spring.datasource.url=" + db.url(),
                        "spring.datasource.username=" + db.user(),
                        "spring.datasource.password=" + db.password(),
                        "spring.data.redis.host=" + redis.host(),
                        "spring.data.redis.port=" + redis.port(),
                        "spring.data.redis.timeout=500ms",
                        "scan.node-id=" + id,
                        "scan.lease-ttl=2s",
                        "scan.renew-interval=500ms",
                        "scan.backlog-refresh=500ms",
                        "scan.jdbc.initialize-schema=never",
                        task + "table=tb_order",
                        task + "id-column=order_id",
                        task + "shard-key-column=user_id",
                        task + "shards=" + SHARDS,
                        task + "workers=2",
                        task + "page-size=10",
                        task + "tiers[0].retries=0",
                        task + "tiers[0].interval=300ms",
                        task + "tiers[1].retries=1-15",
                        task + "tiers[1].interval=1s")
                .run());
    }

    ScanEngine engine() {
        return context.getBean(ScanEngine.class);
    }

    /** GETs {@code path} and expects 200. */
    JsonNode get(String path) throws IOException, InterruptedException {
        return ok(send(path, null));
    }

    /** POSTs {@code action} to the task and expects 200. */
    JsonNode act(String action) throws IOException, InterruptedException {
        return ok(send("/actuator/scan/" + TASK, action));
    }

    /** GETs {@code path}, or POSTs {@code {"action": action}} to it when an action is given. */
    HttpResponse<String> send(String path, @Nullable String action) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10));
        if (action != null) {
            request.header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"action\": \"" + action + "\"}"));
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode json(String body) {
        return JSON.readTree(body);
    }

    private static JsonNode ok(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return json(response.body());
    }

    @Override
    public void close() {
        context.close();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Orders.class)
    static class TestApp {}

    /** Records each order in {@code effect}, taking 10 ms like a slow downstream call. */
    static class Orders {

        private final JdbcTemplate jdbc;

        Orders(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @ScanTask(TASK)
        public void handle(Map<String, Object> order, ScanContext context) {
            LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
            jdbc.update(
                    "INSERT INTO effect (order_id, user_id, node, epoch, seq) VALUES (?, ?, ?, ?, 0)",
                    order.get("order_id"),
                    order.get("user_id"),
                    context.node(),
                    context.epoch());
        }
    }
}
