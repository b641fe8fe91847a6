package io.shardscan.testsupport;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.awaitility.Awaitility;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Redis Cluster of three masters with one replica each, started for one test from the machine's
 * {@code redis-server} and {@code redis-cli} (embedded-redis bundles no cluster support): six
 * processes on free loopback ports, each in a temporary directory and without persistence, joined by
 * {@code redis-cli --cluster create}. A node can be killed with SIGKILL and its replica's promotion
 * awaited. Not thread-safe; {@link #close()} kills every process and deletes the directories, and a
 * JVM shutdown hook does the same if the test does not.
 */
public final class LocalRedisCluster implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LocalRedisCluster.class);
    private static final String HOST = "127.0.0.1";
    private static final int MASTERS = 3;

    private final Path root;
    private final Map<Integer, Process> processes = new TreeMap<>();
    /** A slot of each master killed, by its port: where to look for its replica's promotion. */
    private final Map<Integer, Integer> slotOfKilled = new TreeMap<>();

    private final RedisClient admin;
    private final Thread shutdownHook = new Thread(this::close, "shardscan-redis-cluster");

    private LocalRedisCluster(Path root) {
        this.root = root;
        this.admin = RedisClient.create();
    }

    /**
     * Why a cluster cannot be started on this machine ({@code redis-server} or {@code redis-cli} not on
     * {@code PATH}), or empty when it can: for an assumption that says plainly that a test did not run.
     */
    public static Optional<String> unavailable() {
        for (String binary : List.of("redis-server", "redis-cli")) {
            if (ServerSupport.findExecutable(binary).isEmpty()) {
                return Optional.of("no " + binary + " on PATH: a Redis Cluster needs the machine's Redis 7"
                        + " (e.g. apt-get install redis-server), and this test did not run");
            }
        }
        return Optional.empty();
    }

    /**
     * Starts six nodes with {@code nodeTimeout} as {@code cluster-node-timeout} (how long a master may
     * be unreachable before its replica takes over), creates the cluster and returns once every node
     * reports {@code cluster_state:ok} and every replica is in sync with its master.
     */
    public static LocalRedisCluster start(Duration nodeTimeout) throws IOException {
        if (Boolean.getBoolean(TestServers.NO_SERVERS)) {
            throw new IllegalStateException("This run (the fast loop, -Pfast) starts no real server, but a test"
                    + " asked for a Redis Cluster: annotate its class @ChaosTests");
        }
        unavailable().ifPresent(reason -> {
            throw new IllegalStateException(reason);
        });
        LocalRedisCluster cluster = new LocalRedisCluster(Files.createTempDirectory("shardscan-redis-cluster"));
        Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
        try {
            long started = System.nanoTime();
            for (int i = 0; i < 2 * MASTERS; i++) {
                cluster.launch(nodeTimeout);
            }
            cluster.create();
            Awaitility.await("a Redis Cluster with every slot covered and every replica in sync")
                    .pollInterval(Duration.ofMillis(100))
                    .ignoreExceptions()
                    .until(cluster::ready);
            log.info(
                    "Started a Redis Cluster on ports {} in {} ms, masters {}",
                    cluster.processes.keySet(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                    cluster.masters());
            return cluster;
        } catch (IOException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** Every node's address, masters and replicas: the seed nodes of a client. */
    public List<InetSocketAddress> nodes() {
        return processes.keySet().stream()
                .map(port -> InetSocketAddress.createUnresolved(HOST, port))
                .toList();
    }

    /** The port of the master that serves {@code key}'s slot (its hash tag's, if it has one) now. */
    public int masterOf(String key) {
        RedisClusterNode master = partitions().getPartitionBySlot(SlotHash.getSlot(key));
        if (master == null) {
            throw new IllegalStateException("No node serves the slot of " + key);
        }
        return master.getUri().getPort();
    }

    /**
     * Kills the node on {@code port} with SIGKILL (no shutdown, no goodbye to the cluster) and waits
     * until it exited.
     */
    public void kill(int port) {
        Process process = processes.get(port);
        if (process == null) {
            throw new IllegalArgumentException("No node of this cluster on port " + port);
        }
        partitions().stream()
                .filter(node ->
                        node.getUri().getPort() == port && !node.getSlots().isEmpty())
                .findFirst()
                .ifPresent(master -> slotOfKilled.put(port, master.getSlots().get(0)));
        process.destroyForcibly();
        Awaitility.await("redis-server on port " + port + " exited").until(() -> !process.isAlive());
    }

    /**
     * Waits until the slots of the master {@link #kill killed} on {@code port} are served by another
     * node (its replica, promoted) and every live node reports {@code cluster_state:ok}; returns the
     * new master's port.
     */
    public int awaitPromoted(int port) {
        Integer slot = slotOfKilled.get(port);
        if (slot == null) {
            throw new IllegalArgumentException("The node on port " + port + " was not a master killed by kill()");
        }
        Awaitility.await("the replica of the master on port " + port + " promoted")
                .pollInterval(Duration.ofMillis(100))
                .ignoreExceptions()
                .until(() -> {
                    for (int live : liveNodes()) {
                        RedisClusterNode owner = partitions(live).getPartitionBySlot(slot);
                        if (owner == null
                                || owner.getUri().getPort() == port
                                || !run(live, RedisCommands::clusterInfo).contains("cluster_state:ok")) {
                            return false;
                        }
                    }
                    return true;
                });
        return partitions().getPartitionBySlot(slot).getUri().getPort();
    }

    @Override
    public void close() {
        processes.values().forEach(Process::destroyForcibly);
        for (Process process : processes.values()) {
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        admin.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        ServerSupport.deleteRecursively(root);
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // called by the hook itself, as the JVM exits
        }
    }

    @Override
    public String toString() {
        return "LocalRedisCluster" + processes.keySet();
    }

    private void launch(Duration nodeTimeout) throws IOException {
        int port = ServerSupport.freePort();
        Path dir = Files.createDirectories(root.resolve(Integer.toString(port)));
        ProcessBuilder builder = new ProcessBuilder(
                        ServerSupport.findExecutable("redis-server")
                                .orElseThrow()
                                .toString(),
                        "--port",
                        Integer.toString(port),
                        "--bind",
                        HOST,
                        // the bus port would be port + 10000, which may be taken or past 65535
                        "--cluster-port",
                        Integer.toString(ServerSupport.freePort()),
                        "--cluster-enabled",
                        "yes",
                        "--cluster-config-file",
                        dir.resolve("nodes.conf").toString(),
                        "--cluster-node-timeout",
                        Long.toString(nodeTimeout.toMillis()),
                        // a replica takes over however long ago it last heard from its master
                        "--cluster-replica-validity-factor",
                        "0",
                        "--dir",
                        dir.toString(),
                        "--save",
                        "",
                        "--appendonly",
                        "no")
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile());
        Process process = builder.start();
        processes.put(port, process);
        Awaitility.await("redis-server on port " + port + " answers PING")
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptions()
                .until(() -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException("redis-server on port " + port + " exited: " + logOf(port));
                    }
                    return "PONG".equals(run(port, RedisCommands::ping));
                });
    }

    private void create() throws IOException {
        List<String> command = new ArrayList<>(
                List.of(ServerSupport.findExecutable("redis-cli").orElseThrow().toString(), "--cluster", "create"));
        processes.keySet().forEach(port -> command.add(HOST + ":" + port));
        command.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
        Path output = root.resolve("create.log");
        Process create = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        try {
            if (!create.waitFor(TestTime.BUDGET.toMillis(), TimeUnit.MILLISECONDS) || create.exitValue() != 0) {
                create.destroyForcibly();
                throw new IllegalStateException(
                        "redis-cli --cluster create failed: " + Files.readString(output, StandardCharsets.UTF_8));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while creating the Redis Cluster", e);
        }
    }

    /** Every node sees all six, three masters covering every slot, each replica's link to its master up. */
    private boolean ready() {
        for (int port : processes.keySet()) {
            String info = run(port, RedisCommands::clusterInfo);
            if (!info.contains("cluster_state:ok") || !info.contains("cluster_known_nodes:" + 2 * MASTERS)) {
                return false;
            }
            Partitions partitions = run(port, commands -> ClusterPartitionParser.parse(commands.clusterNodes()));
            if (partitions.stream()
                            .filter(node -> node.is(RedisClusterNode.NodeFlag.REPLICA))
                            .count()
                    != MASTERS) {
                return false;
            }
            String replication = run(port, commands -> commands.info("replication"));
            if (replication.contains("role:slave") && !replication.contains("master_link_status:up")) {
                return false;
            }
        }
        return true;
    }

    private List<String> masters() {
        return partitions().stream()
                .filter(node -> node.is(RedisClusterNode.NodeFlag.UPSTREAM))
                .map(node ->
                        node.getUri().getPort() + " (slots " + node.getSlots().get(0) + "-"
                                + node.getSlots().get(node.getSlots().size() - 1) + ")")
                .toList();
    }

    private Partitions partitions() {
        return partitions(live());
    }

    private Partitions partitions(int port) {
        return run(port, commands -> ClusterPartitionParser.parse(commands.clusterNodes()));
    }

    private int live() {
        return liveNodes().stream()
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("No node of the cluster is running"));
    }

    private List<Integer> liveNodes() {
        return processes.entrySet().stream()
                .filter(entry -> entry.getValue().isAlive())
                .map(Map.Entry::getKey)
                .toList();
    }

    private <T> T run(int port, Function<RedisCommands<String, String>, T> command) {
        RedisURI uri = RedisURI.builder()
                .withHost(HOST)
                .withPort(port)
                .withTimeout(Duration.ofSeconds(2))
                .build();
        try (StatefulRedisConnection<String, String> connection = admin.connect(uri)) {
            return command.apply(connection.sync());
        }
    }

    private String logOf(int port) {
        try {
            return Files.readString(root.resolve(Integer.toString(port)).resolve("redis.log"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
