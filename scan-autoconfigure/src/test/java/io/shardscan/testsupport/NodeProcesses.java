package io.shardscan.testsupport;

import static org.awaitility.Awaitility.await;

import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.redis.RedisShardCoordinator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * {@link NodeMain} nodes as processes of their own on one database and one Redis, for tests that kill
 * or freeze nodes: launches them, waits for them, signals them, and reads their leases from Redis. Each
 * node writes its output to {@code <logs>/<node>.log}. Not thread-safe; {@link #close()} stops every
 * node gracefully (continuing suspended ones first) and drops the Redis connection.
 */
public final class NodeProcesses implements AutoCloseable {

    private final String task;
    private final JdbcEndpoint database;
    private final RedisServerHandle redisServer;
    private final Path logs;
    private static final Pattern CLAIM = Pattern.compile("(\\S+) (\\S+) claimed shard (\\d+) epoch \\d+");

    private final Map<String, Process> nodes = new LinkedHashMap<>();
    private final Set<String> suspended = new HashSet<>();
    private final LettuceConnectionFactory connectionFactory;
    private final RedisShardCoordinator coordinator;

    /** Connects to Redis and deletes the task's keys left by earlier runs. */
    public NodeProcesses(String task, JdbcEndpoint database, RedisServerHandle redisServer, Path logs) {
        this.task = task;
        this.database = database;
        this.redisServer = redisServer;
        this.logs = logs;
        try {
            Files.createDirectories(logs);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create " + logs, e);
        }
        connectionFactory = RedisConnections.open(redisServer.host(), redisServer.port());
        StringRedisTemplate redis = new StringRedisTemplate(connectionFactory);
        Set<String> keys = redis.keys("scan:{" + task + "}:*");
        if (keys != null && !keys.isEmpty()) {
            redis.delete(keys);
        }
        coordinator = new RedisShardCoordinator(connectionFactory);
    }

    /** Starts a node running the task with the given handler delay and page size (see {@link NodeMain}). */
    public Process launch(String node, Duration handlerDelay, int pageSize) {
        return launch(
                node,
                NodeMain.class,
                List.of(task, Long.toString(handlerDelay.toMillis()), Integer.toString(pageSize)));
    }

    /**
     * Starts a node whose {@code main} takes {@code nodeId jdbcUrl dbUser dbPassword redisHost redisPort}
     * and then {@code more}, as {@link NodeMain} and {@link RangeNodeMain} do.
     */
    public Process launch(String node, Class<?> main, List<String> more) {
        String java = ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // surefire may run the tests from a manifest-only jar; the real class path is in its property
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(
                java,
                "-Xmx256m",
                // nodes live a minute and mostly wait: C1 alone and one GC thread cost three of them on two
                // cores less CPU than C2's compiles (NodeFreezeTests froze its victim 20 s after the start)
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-cp",
                classPath,
                main.getName(),
                node,
                database.url(),
                database.user(),
                database.password(),
                redisServer.host(),
                Integer.toString(redisServer.port())));
        command.addAll(more);
        try {
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log(node).toFile())
                    .start();
            nodes.put(node, process);
            return process;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start node " + node, e);
        }
    }

    /** Waits until every launched node printed {@code READY}; fails with a node's log when it exited. */
    public void awaitReady() {
        nodes.forEach((node, process) -> await(node + " READY (see " + log(node).toAbsolutePath() + ")")
                .atMost(TestTime.scaled(Duration.ofSeconds(60)))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException(
                                node + " exited with " + process.exitValue() + ": " + logText(node));
                    }
                    return logText(node).lines().anyMatch(line -> line.equals("READY " + node));
                }));
    }

    /**
     * Waits until the live leases of {@code shards} shards are spread as evenly as they can be over
     * {@code nodeCount} nodes (64 over 3: 21, 21 and 22).
     */
    public void awaitBalanced(int shards, int nodeCount, Duration atMost) {
        List<Long> even = new ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            even.add((long) (shards / nodeCount + (i < shards % nodeCount ? 1 : 0)));
        }
        Collections.sort(even);
        await(nodeCount + " nodes balanced at " + even + " shards")
                .atMost(atMost)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    Map<String, Long> counts = new TreeMap<>();
                    liveOwners().values().forEach(owner -> counts.merge(owner, 1L, Long::sum));
                    return counts.values().stream().sorted().toList().equals(even);
                });
    }

    /** The process of a launched node. */
    public Process process(String node) {
        return Objects.requireNonNull(nodes.get(node), () -> "no node " + node);
    }

    /** The file a node's output goes to. */
    public Path log(String node) {
        return logs.resolve(node + ".log");
    }

    /** A node's output so far. */
    public String logText(String node) throws IOException {
        return Files.readString(log(node), StandardCharsets.ISO_8859_1);
    }
    /**
     * When the live nodes other than {@code victim} first claimed each of {@code shards} at or after
     * {@code since}, as those nodes logged it (see {@link NodeMain}); a shard no one claimed is left out.
     */
    public Map<Integer, Instant> claimedSince(Set<Integer> shards, String victim, Instant since) throws IOException {
        Map<Integer, Instant> claims = new HashMap<>();
        for (String node : nodes.keySet()) {
            if (node.equals(victim)) {
                continue;
            }
            for (String line : logText(node).lines().toList()) {
                Matcher claim = CLAIM.matcher(line);
                if (claim.matches() && claim.group(2).equals(node)) {
                    Instant at = Instant.parse(claim.group(1));
                    int shard = Integer.parseInt(claim.group(3));
                    if (shards.contains(shard) && !at.isBefore(since)) {
                        claims.merge(shard, at, (a, b) -> a.isBefore(b) ? a : b);
                    }
                }
            }
        }
        return claims;
    }

    /** Freezes a node with SIGSTOP: its threads, timers and sockets stand still until {@link #resume}. */
    public void suspend(String node) {
        signal(node, "STOP");
        suspended.add(node);
    }

    /** Lets a node frozen by {@link #suspend} run again (SIGCONT). */
    public void resume(String node) {
        signal(node, "CONT");
        suspended.remove(node);
    }

    /** Shard to owner, for the shards with a live lease. */
    public Map<Integer, String> liveOwners() {
        Map<Integer, String> owners = new TreeMap<>();
        for (LeaseInfo lease : coordinator.leases(task)) {
            if (lease.owner() != null) {
                owners.put(lease.shard(), lease.owner());
            }
        }
        return owners;
    }

    /** The shards {@code node} holds a live lease on. */
    public Set<Integer> shardsOf(String node) {
        Set<Integer> shards = new TreeSet<>();
        liveOwners().forEach((shard, owner) -> {
            if (owner.equals(node)) {
                shards.add(shard);
            }
        });
        return shards;
    }

    /** Stops every node with SIGTERM (a graceful stop through its shutdown hook), forcibly after 15 s. */
    @Override
    public void close() {
        // a stopped process acts on SIGTERM only once it runs again
        new ArrayList<>(suspended).forEach(this::resume);
        nodes.values().forEach(Process::destroy);
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
        connectionFactory.destroy();
    }

    private void signal(String node, String signal) {
        Process process = process(node);
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .redirectErrorStream(true)
                    .start();
            String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed: " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot run kill -" + signal, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while sending SIG" + signal + " to " + node, e);
        }
    }
}
