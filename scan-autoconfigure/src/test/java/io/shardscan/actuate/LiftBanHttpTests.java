package io.shardscan.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.annotation.ScanTask;
import io.shardscan.core.ScanListener;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.ScanContext;
import io.shardscan.redis.RedisEndpointBans;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.RedisConnections;
import io.shardscan.testsupport.RedisServerHandle;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.StoreServers;
import io.shardscan.testsupport.TestServers;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import tools.jackson.databind.JsonNode;

/**
 * The {@code lift-ban} action as an operator uses it: a Spring Boot application with Tomcat, its
 * endpoint blacklist in Redis, a task pushing orders to real HTTP stores, one of which refuses
 * connections until it is banned; then {@code GET} and {@code POST /actuator/scan/{task}} over HTTP.
 */
@ServerTests
class LiftBanHttpTests {

    static final String TASK = "lift-ban-orders";
    static final String PATH = "/actuator/scan/" + TASK;

    /** The stores the application's handler pushes to; static because Spring creates the handler. */
    @RegisterExtension
    static final StoreServers STORES = new StoreServers(3);

    static final List<String> EVENTS = new CopyOnWriteArrayList<>();

    @RegisterExtension
    final CapturedLog log = new CapturedLog("io.shardscan.core.EndpointBlacklist");

    /** The application's Redis keys, which this test reads and clears with a store of its own. */
    static final String NAMESPACE = "lift-ban-test";

    private final HttpClient http = HttpClient.newHttpClient();
    private ConfigurableApplicationContext context;
    private int port;

    @AfterEach
    void stop() {
        if (context != null) {
            context.close();
        }
    }

    @Test
    void anOperatorSeesTheBanLiftsItOverHttpAndGetsAClearAnswerForAnEndpointThatIsNotBanned() throws Exception {
        OrderTable table = new OrderTable(TestServers.postgresDatabase("lift_ban"))
                .recreate(8, true)
                .coordinationTables()
                .insert(90, 9, Instant.now().minusSeconds(5))
                .withStores(3);
        STORES.down(2);
        start();
        RedisEndpointBans store = new RedisEndpointBans(context.getBean(RedisConnectionFactory.class), NAMESPACE);

        JsonNode banned = await().until(
                        () -> get(PATH), view -> !view.path("bannedEndpoints").isEmpty());
        assertThat(banned.path("bannedEndpoints")).singleElement().satisfies(ban -> {
            assertThat(ban.path("endpoint").asString()).isEqualTo("2");
            assertThat(ban.path("inForce").asBoolean()).isTrue();
            assertThat(ban.path("lastError").asString()).contains("ConnectException");
        });
        assertThat(store.bans(TASK)).extracting(b -> b.endpoint()).containsExactly("2");
        await().until(() -> table.count("status = 1") == 60);
        assertThat(STORES.received(2)).isEmpty();

        HttpResponse<String> notBanned = post("{\"action\": \"lift-ban\", \"endpoint\": \"9\"}");
        assertThat(notBanned.statusCode()).isEqualTo(200);
        JsonNode answer = EndpointNode.json(notBanned.body());
        assertThat(answer.path("lifted").asBoolean(true)).isFalse();
        assertThat(answer.path("message").asString())
                .isEqualTo("endpoint 9 was not banned, so no ban was lifted; banned now: [2]");
        assertThat(EVENTS).doesNotContain("lifted 9");
        assertThat(log.messages()).noneMatch(m -> m.contains("endpoint 9") && m.contains("lifted"));
        assertThat(store.bans(TASK)).extracting(b -> b.endpoint()).containsExactly("2");

        HttpResponse<String> blank = post("{\"action\": \"lift-ban\", \"endpoint\": \" \"}");
        assertThat(blank.statusCode()).as(blank.body()).isEqualTo(400);
        assertThat(EndpointNode.json(blank.body()).path("message").asString())
                .startsWith("lift-ban needs the endpoint to lift");

        STORES.up(2);
        HttpResponse<String> lift = post("{\"action\": \"lift-ban\", \"endpoint\": \"2\"}");
        assertThat(lift.statusCode()).as(lift.body()).isEqualTo(200);
        JsonNode lifted = EndpointNode.json(lift.body());
        assertThat(lifted.path("action").asString()).isEqualTo("lift-ban");
        assertThat(lifted.path("lifted").asBoolean()).isTrue();
        assertThat(lifted.path("message").asString()).startsWith("the ban of endpoint 2 is lifted on every node");
        assertThat(EVENTS).contains("lifted 2");
        assertThat(store.bans(TASK)).isEmpty();
        assertThat(get(PATH).path("bannedEndpoints").isEmpty()).isTrue();
        await().until(() -> table.count("status = 1") == 90);
        assertThat(STORES.received(2)).hasSize(30);
    }

    private void start() {
        EVENTS.clear();
        JdbcEndpoint db = TestServers.postgresEndpoint("lift_ban");
        RedisServerHandle redis = TestServers.redis();
        String task = "scan.tasks." + TASK + ".";
        // a ban left by an earlier run on a shared Redis would be listed from the start; lifted before
        // the node starts, as the node may ban the endpoint as soon as it runs
        LettuceConnectionFactory connections = RedisConnections.open(redis.host(), redis.port());
        try {
            new RedisEndpointBans(connections, NAMESPACE).lift(TASK, "2");
        } finally {
            connections.destroy();
        }
        context = new SpringApplicationBuilder(App.class)
                .properties(
                        "server.port=0",
                        "management.endpoints.web.exposure.include=scan",
                        "scan.redis.namespace=" + NAMESPACE,
                        "spring.datasource.url=" + db.url(),
                        "spring.datasource.username=" + db.user(),
                        "spring.datasource.password=" + db.password(),
                        "spring.data.redis.host=" + redis.host(),
                        "spring.data.redis.port=" + redis.port(),
                        "scan.node-id=lift-ban-node",
                        "scan.lease-ttl=2s",
                        "scan.renew-interval=500ms",
                        "management.endpoint.scan.access=unrestricted",
                        "scan.jdbc.initialize-schema=never",
                        task + "mode=sync",
                        task + "table=tb_order",
                        task + "id-column=order_id",
                        task + "shard-key-column=user_id",
                        task + "endpoint-column=store_id",
                        task + "shards=8",
                        task + "workers=4",
                        task + "tiers[0].retries=0",
                        task + "tiers[0].interval=300ms",
                        task + "tiers[1].retries=1-1000",
                        task + "tiers[1].interval=300ms",
                        task + "level1.after=1",
                        task + "level2.trips=1",
                        // long enough that only the operator's lift ends it within the test
                        task + "level2.ban=10m")
                .run();
        port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
    }

    private JsonNode get(String path) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(request(path).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return EndpointNode.json(response.body());
    }

    private HttpResponse<String> post(String body) throws IOException, InterruptedException {
        return http.send(
                request(PATH)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10));
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {

        @Bean
        Orders orders() {
            return new Orders();
        }

        @Bean
        ScanListener liftRecorder() {
            return new ScanListener() {
                @Override
                public void endpointLifted(String task, String endpoint) {
                    EVENTS.add("lifted " + endpoint);
                }
            };
        }
    }

    /** Pushes each order to its store. */
    static class Orders {

        @ScanTask(TASK)
        public Outcome push(Row row, ScanContext ctx) throws IOException, InterruptedException {
            return STORES.push(row, ctx);
        }
    }
}
