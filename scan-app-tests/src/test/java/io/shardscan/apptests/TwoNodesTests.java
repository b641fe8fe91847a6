package io.shardscan.apptests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.ScanEngine;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.RedisServerHandle;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The outbox service as two nodes on one PostgreSQL and one Redis: every event delivered once with
 * its JPA save committed with the write-back (issue 22 §1), its {@code jsonb} payload bound to a
 * {@code String} (§2), sharded by its account's UUID (§3), the Redis keys named for this
 * application and database (§4), and the dashboard guide's security chains in force (§5).
 */
@ServerTests
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TwoNodesTests {

    static final int EVENTS = 400;
    static final String DB = "outbox_app";

    final DataSource dataSource = TestServers.postgresDatabase(DB);
    final JdbcTemplate jdbc = new JdbcTemplate(dataSource);
    final RedisServerHandle redis = TestServers.redis();
    final HttpClient http = HttpClient.newHttpClient();
    final List<ConfigurableApplicationContext> nodes = new ArrayList<>();
    final Set<Long> rejected = Set.of(7L, 123L);

    @BeforeAll
    void startTwoNodes() {
        jdbc.execute("DROP SCHEMA public CASCADE");
        jdbc.execute("CREATE SCHEMA public");
        for (String node : List.of("node-a", "node-b")) {
            nodes.add(start(node));
        }
        // the events come once each node holds its half of the shards
        await().until(() -> nodes.stream().allMatch(node -> owned(node) == 8));
        List<Object[]> events = new ArrayList<>();
        Timestamp past = Timestamp.from(Instant.now().minusSeconds(5));
        for (long id = 1; id <= EVENTS; id++) {
            UUID account = UUID.nameUUIDFromBytes(("account-" + id % 37).getBytes(StandardCharsets.UTF_8));
            String payload = "{\"amount\": " + id + (rejected.contains(id) ? ", \"reject\": true" : "") + "}";
            events.add(new Object[] {id, account, payload});
        }
        jdbc.batchUpdate(
                "INSERT INTO outbox_event (event_id, account_id, payload) VALUES (?, ?, CAST(? AS JSONB))", events);
    }

    private ConfigurableApplicationContext start(String node) {
        JdbcEndpoint db = TestServers.postgresEndpoint(DB);
        return new SpringApplicationBuilder(OutboxApplication.class)
                .properties(Map.of(
                        "server.port", "0",
                        "scan.node-id", node,
                        "spring.datasource.url", db.url(),
                        "spring.datasource.username", db.user(),
                        "spring.datasource.password", db.password(),
                        "spring.data.redis.host", redis.host(),
                        "spring.data.redis.port", String.valueOf(redis.port())))
                .run();
    }

    @AfterAll
    void stop() {
        nodes.forEach(ConfigurableApplicationContext::close);
    }

    @Test
    void everyEventIsDeliveredOnceWithItsJpaSaveAndTheRejectedOnesRollBackBoth() {
        await().until(() -> count("SELECT COUNT(*) FROM delivery") == EVENTS - rejected.size());
        // the two nodes shared the shards, and each delivered events of its own
        assertThat(jdbc.queryForList("SELECT DISTINCT node FROM delivery", String.class))
                .containsExactlyInAnyOrder("node-a", "node-b");
        assertThat(count("SELECT COUNT(*) FROM outbox_event WHERE status = 1")).isEqualTo(EVENTS - rejected.size());
        // a delivery holds the payload's text as the jsonb column gave it
        assertThat(jdbc.queryForObject("SELECT payload FROM delivery WHERE event_id = 5", String.class))
                .isEqualTo("{\"amount\": 5}");
        // a rejected event's save was rolled back with its write-back: no delivery, a failure recorded
        await().until(() -> count("SELECT MIN(retry_count) FROM outbox_event WHERE event_id IN (7, 123)") >= 1);
        assertThat(count("SELECT COUNT(*) FROM delivery WHERE event_id IN (7, 123)"))
                .isZero();
        assertThat(jdbc.queryForList("SELECT last_error FROM outbox_event WHERE event_id IN (7, 123)", String.class))
                .allMatch(error -> error.contains("the receiver rejected event"));
    }

    @Test
    void flywayMigratedTheApplicationsSchemaAndShardscansInTheirOwnHistories() {
        assertThat(jdbc.queryForList("SELECT version FROM flyway_schema_history WHERE success", String.class))
                .containsExactly("1");
        assertThat(jdbc.queryForList(
                        "SELECT version FROM scan_schema_history WHERE success AND version <> '0' ORDER BY installed_rank",
                        String.class))
                .containsExactly("1", "2", "3");
    }

    @Test
    void theNodesShareTheShardsThroughKeysNamedForThisApplicationAndDatabase() {
        await().until(() -> nodes.stream().allMatch(node -> owned(node) == 8));
        LettuceConnectionFactory factory = new LettuceConnectionFactory(redis.host(), redis.port());
        factory.afterPropertiesSet();
        factory.start();
        try {
            Set<String> keys = new StringRedisTemplate(factory).keys("scan:*outbox*");
            assertThat(keys).isNotEmpty().allMatch(key -> key.startsWith("scan:{outbox-app@postgresql://"));
        } finally {
            factory.destroy();
        }
    }

    @Test
    void theActuatorAndTheApplicationStayBehindTheirLogins() throws Exception {
        String pause = "{\"action\": \"pause\"}";
        assertThat(post("/actuator/scan/outbox", pause, null)).isEqualTo(401);
        assertThat(post("/actuator/scan/outbox", pause, "clerk:clerk")).isEqualTo(403);
        assertThat(post("/orders", "{}", null)).isEqualTo(401);
        assertThat(get("/orders", null)).isEqualTo(401);
        assertThat(get("/orders", "clerk:clerk")).isEqualTo(200);
        assertThat(get("/actuator/health", null)).isEqualTo(200);
        assertThat(get("/actuator/prometheus", null)).isEqualTo(401);
        assertThat(get("/scan", "clerk:clerk")).isEqualTo(403);
        assertThat(get("/actuator/scan", "operator:ops")).isEqualTo(200);
    }

    /**
     * The chains above are the dashboard guide's ({@code docs/guides/dashboard.md}), as a user copies them: its
     * block's code, but for the class around it (the guide's is nested), in ScanSecurity, whatever the line breaks.
     */
    @Test
    void theChainsAreTheDashboardGuides() throws Exception {
        String guide = Files.readString(Path.of("..", "docs", "guides", "dashboard.md"));
        int start = guide.indexOf("```java", guide.indexOf("**The whole application.**"));
        String block = guide.substring(start + "```java".length(), guide.indexOf("```", start + 7));
        String chains = block.substring(block.indexOf("@Bean"), block.lastIndexOf('}'));
        String source = Files.readString(Path.of("src/main/java/io/shardscan/apptests/ScanSecurity.java"));
        assertThat(source.replaceAll("\\s+", "")).contains(chains.replaceAll("\\s+", ""));
    }

    private int owned(ConfigurableApplicationContext node) {
        return node.getBean(ScanEngine.class).task("outbox").ownedShards().size();
    }

    private long count(String sql) {
        Long count = jdbc.queryForObject(sql, Long.class);
        return count == null ? 0 : count;
    }

    private int post(String path, String body, String user) throws Exception {
        HttpRequest.Builder request = request(path, user)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        return http.send(request.build(), HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    private int get(String path, String user) throws Exception {
        return http.send(request(path, user).GET().build(), HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    private HttpRequest.Builder request(String path, String user) {
        String port = nodes.get(0).getEnvironment().getProperty("local.server.port");
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path));
        if (user != null) {
            request.header(
                    "Authorization",
                    "Basic " + Base64.getEncoder().encodeToString(user.getBytes(StandardCharsets.UTF_8)));
        }
        return request;
    }
}
