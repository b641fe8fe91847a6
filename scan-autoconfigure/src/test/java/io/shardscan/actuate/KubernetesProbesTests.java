package io.shardscan.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.annotation.ScanTask;
import io.shardscan.autoconfigure.ScanLifecycle;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

/**
 * The probes of the Kubernetes guide ({@code docs/guides/kubernetes.md}, whose settings block the application
 * runs with), over HTTP on a real server, while
 * the database hangs: every new connection waits, as through a network partition, where Spring Boot's own
 * {@code db} indicator kept {@code /actuator/health} waiting 10 to 22 s. The liveness group (the application's
 * liveness state only) and the readiness group (its readiness state and Shardscan's {@code scan} health,
 * which reads what the lease keepers and rounds last saw and runs no query) answer while a request for
 * {@code /actuator/health}, which includes {@code db}, is still waiting for a connection.
 */
class KubernetesProbesTests {

    static final HangingDatabase DATABASE = new HangingDatabase();
    static final HttpClient HTTP = HttpClient.newHttpClient();

    ConfigurableApplicationContext context;

    @AfterEach
    void close() {
        DATABASE.answer();
        if (context != null) {
            context.close();
        }
    }

    @Test
    void theProbesAnswerWhileTheDatabaseHangsAndTheWholeHealthWaitsForIt() throws Exception {
        new OrderTable(TestServers.h2("k8s_probes"))
                .recreate(4, true)
                .coordinationTables()
                .insert(4, 4, Instant.now());
        context = new SpringApplicationBuilder(App.class)
                .properties(new LinkedHashMap<>(guideSettings()))
                .properties(
                        "server.port=0",
                        // so that the answer shows the db component it waited for
                        "management.endpoint.health.show-components=always",
                        "scan.jdbc.initialize-schema=never",
                        "scan.tasks.orders.table=tb_order",
                        "scan.tasks.orders.id-column=order_id",
                        "scan.tasks.orders.shard-key-column=user_id",
                        "scan.tasks.orders.shards=4")
                .run();
        assertThat(get("/actuator/health/readiness").join().statusCode()).isEqualTo(200);

        DATABASE.hang();
        CompletableFuture<HttpResponse<String>> whole = get("/actuator/health");
        // Boot's db indicator, on a request thread of the server, waits for a connection
        await().until(() ->
                DATABASE.waiting().stream().anyMatch(t -> t.getName().startsWith("http-")));

        CompletableFuture<HttpResponse<String>> livenessCall = get("/actuator/health/liveness");
        CompletableFuture<HttpResponse<String>> readinessCall = get("/actuator/health/readiness");
        // a probe that waited for the database would fail here, after Awaitility's timeout, not hang the test
        await().until(() -> livenessCall.isDone() && readinessCall.isDone());
        HttpResponse<String> liveness = livenessCall.join();
        HttpResponse<String> readiness = readinessCall.join();
        assertThat(liveness.statusCode()).isEqualTo(200);
        // UP, or 503 once the engine's lease tick waited past the lease TTL: an answer either way
        assertThat(readiness.statusCode()).isIn(200, 503);
        assertThat(whole).as("/actuator/health, with db, still waits").isNotDone();

        DATABASE.answer();
        assertThat(whole.join().body()).contains("\"db\"");
    }

    /**
     * The guide's order of a stop: Shardscan's lifecycle phase is above the web server's graceful shutdown,
     * so the engine stops (and writes back) first, while the server still answers.
     */
    @Test
    void shardscanStopsBeforeTheWebServerDrains() {
        assertThat(ScanLifecycle.PHASE).isGreaterThan(WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE);
    }

    /** The guide sets only properties that Spring Boot's or Shardscan's configuration metadata has. */
    @Test
    void everySettingOfTheGuideIsAKnownProperty() throws IOException {
        Map<String, String> settings = guideSettings();
        assertThat(settings)
                .containsEntry("management.endpoint.health.group.readiness.include", "readinessState, scan")
                .containsKeys("spring.lifecycle.timeout-per-shutdown-phase", "scan.shutdown-timeout");
        Map<String, String> known = new LinkedHashMap<>();
        for (URL url : Collections.list(
                getClass().getClassLoader().getResources("META-INF/spring-configuration-metadata.json"))) {
            try (InputStream in = url.openStream()) {
                Map<String, Object> metadata = JsonParserFactory.getJsonParser()
                        .parseMap(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                for (Object property : (List<?>) metadata.get("properties")) {
                    Map<?, ?> fields = (Map<?, ?>) property;
                    known.put((String) fields.get("name"), String.valueOf(fields.get("type")));
                }
            }
        }
        assertThat(settings.keySet()).allSatisfy(name -> assertThat(known.containsKey(name)
                        || known.entrySet().stream()
                                .anyMatch(property -> property.getValue().startsWith("java.util.Map")
                                        && name.startsWith(property.getKey() + ".")))
                .as("%s is in the configuration metadata", name)
                .isTrue());
    }

    /** The first YAML block of docs/guides/kubernetes.md, as the properties an application reads from it. */
    static Map<String, String> guideSettings() throws IOException {
        String guide = Files.readString(Path.of("..", "docs", "guides", "kubernetes.md"));
        int start = guide.indexOf("```yaml\n") + "```yaml\n".length();
        String block = guide.substring(start, guide.indexOf("```", start));
        Map<String, String> settings = new LinkedHashMap<>();
        for (PropertySource<?> source : new YamlPropertySourceLoader()
                .load("kubernetes.md", new ByteArrayResource(block.getBytes(StandardCharsets.UTF_8)))) {
            for (String name : ((EnumerablePropertySource<?>) source).getPropertyNames()) {
                settings.put(name, String.valueOf(source.getProperty(name)));
            }
        }
        return settings;
    }

    private CompletableFuture<HttpResponse<String>> get(String path) {
        int port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
        return HTTP.sendAsync(
                HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The test's H2 pool, whose connections can be made to wait, as a database behind a partition does. */
    static final class HangingDatabase {

        private final DataSource target = TestServers.h2("k8s_probes");
        private final Set<Thread> waiting = ConcurrentHashMap.newKeySet();
        private volatile CountDownLatch gate = new CountDownLatch(0);

        /** From now on, every new connection waits until {@link #answer()}. */
        void hang() {
            gate = new CountDownLatch(1);
        }

        void answer() {
            gate.countDown();
        }

        /** The threads waiting for a connection now. */
        Set<Thread> waiting() {
            return waiting;
        }

        DataSource dataSource() {
            return (DataSource) Proxy.newProxyInstance(
                    DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                        if (method.getName().equals("getConnection")) {
                            waiting.add(Thread.currentThread());
                            try {
                                gate.await();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                                throw new SQLException("interrupted while the database hung", e);
                            } finally {
                                waiting.remove(Thread.currentThread());
                            }
                        }
                        try {
                            return method.invoke(target, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Orders.class)
    static class App {

        @Bean
        DataSource dataSource() {
            return DATABASE.dataSource();
        }
    }

    static class Orders {
        @ScanTask("orders")
        public void send(Map<String, Object> order) {}
    }
}
