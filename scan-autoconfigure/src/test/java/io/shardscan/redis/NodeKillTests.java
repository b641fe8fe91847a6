package io.shardscan.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.LeaseInfo;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.NodeMain;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.RedisServerHandle;
import io.shardscan.testsupport.TestServers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Three nodes as separate JVMs on one PostgreSQL database and one Redis; one of them is killed with
 * SIGKILL in the middle of the work. Its shards must find new owners within about one lease TTL, no
 * row may be lost, and the only rows run twice must be the ones the dead node had in flight.
 */
class NodeKillTests {

    static final String TASK = "order-sms";
    static final int ROWS = 60_000;
    static final int SHARDS = 64;
    static final int WORKERS = 8;
    static final int PAGE_SIZE = 200;
    static final Duration LEASE_TTL = Duration.ofSeconds(6);
    static final Path LOGS = Path.of("target", "node-kill");

    final DataSource dataSource = TestServers.postgresDatabase("node_kill");
    final JdbcEndpoint endpoint = TestServers.postgresEndpoint("node_kill");
    final RedisServerHandle redisServer = TestServers.redis();
    final Map<String, Process> nodes = new LinkedHashMap<>();
    OrderTable table;
    LettuceConnectionFactory connectionFactory;
    RedisShardCoordinator coordinator;

    @BeforeEach
    void setUp() throws IOException {
        table = new OrderTable(dataSource)
                .recreate(SHARDS, true)
                .coordinationTables()
                .insert(ROWS, 15_000, Instant.now().minusSeconds(5));
        connectionFactory = new LettuceConnectionFactory(redisServer.host(), redisServer.port());
        connectionFactory.afterPropertiesSet();
        connectionFactory.start();
        StringRedisTemplate redis = new StringRedisTemplate(connectionFactory);
        Set<String> keys = redis.keys("scan:{" + TASK + "}:*");
        if (keys != null && !keys.isEmpty()) {
            redis.delete(keys);
        }
        coordinator = new RedisShardCoordinator(connectionFactory);
        Files.createDirectories(LOGS);
    }

    @AfterEach
    void tearDown() {
        nodes.values().forEach(Process::destroy); // SIGTERM: graceful stop through the shutdown hook
        for (Process node : nodes.values()) {
            try {
                if (!node.waitFor(15, TimeUnit.SECONDS)) {
                    node.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                node.destroyForcibly();
            }
        }
        nodes.clear();
        if (connectionFactory != null) {
            connectionFactory.destroy();
        }
    }

    @Test
    void killedNodesShardsMoveWithinALeaseTtlAndNoRowIsLost() {
        long startedAt = System.nanoTime();
        for (String node : List.of("node-a", "node-b", "node-c")) {
            launch(node);
        }
        nodes.forEach((node, process) -> awaitReady(node, process));

        await("three nodes balanced at 21/21/22 shards")
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> liveOwners().values().stream()
                        .collect(Collectors.groupingBy(o -> o, TreeMap::new, Collectors.counting()))
                        .values()
                        .stream()
                        .sorted()
                        .toList()
                        .equals(List.of(21L, 21L, 22L)));
        await("some progress")
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> table.count("status = 1") >= 5_000);

        long balancedAt = System.nanoTime();
        String victim = "node-b";
        Map<Integer, String> before = liveOwners();
        Set<Integer> victimShards = shardsOf(victim, before);
        int doneAtKill = table.count("status = 1");
        Process killed = nodes.get(victim);
        killed.destroyForcibly(); // SIGKILL: no shutdown hook, no release, no leave
        long killedAt = System.nanoTime();
        assertThat(doneAtKill).as("rows done when the victim was killed").isLessThan(ROWS);
        assertThat(victimShards).hasSizeBetween(21, 22);

        await("every shard of the killed node owned by a live node")
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    Map<Integer, String> owners = liveOwners();
                    return victimShards.stream().allMatch(shard -> {
                        String owner = owners.get(shard);
                        return owner != null && !owner.equals(victim);
                    });
                });
        Duration failover = Duration.ofNanos(System.nanoTime() - killedAt);
        assertThat(killed.isAlive()).isFalse();
        System.out.printf(
                "NodeKillTests: %d rows done at the kill; %d shards of %s owned again after %d ms%n",
                doneAtKill, victimShards.size(), victim, failover.toMillis());
        assertThat(failover)
                .as("failover of %s's %d shards", victim, victimShards.size())
                .isLessThanOrEqualTo(LEASE_TTL.multipliedBy(3).dividedBy(2));

        await("every row done")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> table.count("status = 1") == ROWS);
        System.out.printf(
                "NodeKillTests: nodes ready and balanced with progress after %d ms, all rows done %d ms after the kill%n",
                TimeUnit.NANOSECONDS.toMillis(balancedAt - startedAt),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt));

        assertThat(table.count("status <> 1")).isZero();
        assertThat(table.jdbc()
                        .queryForObject(
                                "SELECT COUNT(*) FROM tb_order o WHERE NOT EXISTS"
                                        + " (SELECT 1 FROM effect e WHERE e.order_id = o.order_id)",
                                Integer.class))
                .as("rows without an effect (lost)")
                .isZero();
        List<Long> duplicates = table.jdbc()
                .queryForList(
                        "SELECT order_id FROM effect GROUP BY order_id HAVING COUNT(*) > 1 ORDER BY order_id",
                        Long.class);
        List<Long> withoutVictim = table.jdbc()
                .queryForList(
                        "SELECT order_id FROM effect GROUP BY order_id HAVING COUNT(*) > 1"
                                + " AND COUNT(CASE WHEN node = ? THEN 1 END) = 0 ORDER BY order_id",
                        Long.class,
                        victim);
        System.out.printf(
                "NodeKillTests: %d effects, %d rows run more than once%n", table.effects(), duplicates.size());
        assertThat(duplicates)
                .as("rows run more than once: at most the killed node's rows in flight")
                .hasSizeLessThanOrEqualTo(WORKERS * PAGE_SIZE);
        assertThat(withoutVictim)
                .as("rows run more than once without the killed node among their runs")
                .isEmpty();
    }

    private void launch(String node) {
        String java = ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // surefire may run the tests from a manifest-only jar; the real class path is in its property
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(
                java,
                "-Xmx256m",
                "-cp",
                classPath,
                NodeMain.class.getName(),
                node,
                endpoint.url(),
                endpoint.user(),
                endpoint.password(),
                redisServer.host(),
                Integer.toString(redisServer.port()),
                TASK));
        Path log = LOGS.resolve(node + ".log");
        try {
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            nodes.put(node, process);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start node " + node, e);
        }
    }

    private static void awaitReady(String node, Process process) {
        Path log = LOGS.resolve(node + ".log");
        await(node + " READY (see " + log.toAbsolutePath() + ")")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException(node + " exited with " + process.exitValue() + ": "
                                + Files.readString(log, StandardCharsets.ISO_8859_1));
                    }
                    return Files.readString(log, StandardCharsets.ISO_8859_1)
                            .lines()
                            .anyMatch(line -> line.equals("READY " + node));
                });
    }

    /** Shard to owner, for the shards with a live lease. */
    private Map<Integer, String> liveOwners() {
        Map<Integer, String> owners = new TreeMap<>();
        for (LeaseInfo lease : coordinator.leases(TASK)) {
            if (lease.owner() != null) {
                owners.put(lease.shard(), lease.owner());
            }
        }
        return owners;
    }

    private static Set<Integer> shardsOf(String node, Map<Integer, String> owners) {
        Set<Integer> shards = new TreeSet<>();
        owners.forEach((shard, owner) -> {
            if (Objects.equals(owner, node)) {
                shards.add(shard);
            }
        });
        return shards;
    }
}
