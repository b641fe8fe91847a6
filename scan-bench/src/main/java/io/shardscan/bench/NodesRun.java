package io.shardscan.bench;

import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.redis.RedisShardCoordinator;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Shardscan nodes as separate JVMs ({@link ApplicationNodeProcess}, each a Spring Boot application) on one
 * PostgreSQL, draining {@code bench_task}. Start-up is left out of the time: the task is paused everywhere
 * before the nodes start, and the clock starts only once every node is ready and the leases are balanced
 * among them; then every node is told to resume. The end is when the nodes' reported counts of rows done
 * add up to the table's rows.
 */
final class NodesRun {

    /** Each node's heap. */
    static final String XMX = "512m";

    /** How often the launcher reads the nodes' last counts. */
    static final Duration POLL = Duration.ofMillis(10);

    /**
     * What the nodes did: the seconds from their start until all were ready and until their leases were
     * balanced (not timed), the timed drain, the lease statements among its statements, the leases the nodes
     * lost meanwhile (a shard that moved, whose rows may run twice), rows left after.
     */
    record Figures(
            int nodes,
            double readySeconds,
            double balancedSeconds,
            Measured measured,
            long leaseStatements,
            long leasesLost,
            long left) {}

    private NodesRun() {}

    /**
     * Starts {@code nodes} node processes on the filled table, times their drain and stops them.
     *
     * @param pg a pool of the launcher's own, whose statements are not counted
     */
    static Figures drain(Bench bench, Pg pg, int nodes, int workers, long rows) throws Exception {
        String task = ScanTaskJobs.TASK;
        bench.clearRedis(task);
        TaskDefinition definition = new ScanTaskJobs().task(workers).definition();
        new JdbcTaskStore(pg.dataSource()).control().pauseEverywhere(definition, true, "scan-bench", Instant.now());
        ShardCoordinator coordinator = new RedisShardCoordinator(bench.redis());
        Measured measured;
        long leaseStatements;
        long leasesLost;
        double ready;
        double balanced;
        long started = System.nanoTime();
        try (Nodes children = new Nodes()) {
            for (int i = 0; i < nodes; i++) {
                children.start(
                        ApplicationNodeProcess.COMMAND,
                        "n" + nodes + "-" + i,
                        XMX,
                        List.of(bench.pgUrl(), bench.redisUrl(), Integer.toString(workers)));
            }
            children.awaitReady(Duration.ofMinutes(2));
            ready = Await.seconds(System.nanoTime() - started);
            Await.until("the leases balanced over " + nodes + " nodes", Duration.ofMinutes(2), POLL, () -> {
                children.requireAlive();
                return Leases.balanced(Leases.owners(coordinator, task), children.ids(), Pg.SHARDS);
            });
            balanced = Await.seconds(System.nanoTime() - started);
            pg.quiesce();
            DbCost.Window cost = DbCost.Window.open(bench.pgUrl());
            long start = System.nanoTime();
            children.ids().forEach(id -> children.send(id, ApplicationNodeProcess.GO));
            AtomicReference<List<String>> last = new AtomicReference<>();
            Await.until("the nodes to mark " + rows + " rows done", Duration.ofHours(1), POLL, () -> {
                List<String> lines = children.ids().stream()
                        .map(id -> children.last(id, "STATS"))
                        .toList();
                last.set(lines);
                if (lines.stream().allMatch(l -> l != null && NodeProcess.field(l, "go") == 1)
                        && sum(lines, "processed") >= rows) {
                    return true;
                }
                children.requireAlive();
                return false;
            });
            long nanos = System.nanoTime() - start;
            measured = new Measured(nanos, rows, cost.close(sum(last.get(), "statements")));
            leaseStatements = sum(last.get(), "lease_statements");
            leasesLost = sum(last.get(), "leases_lost");
        }
        return new Figures(nodes, ready, balanced, measured, leaseStatements, leasesLost, pg.count("status <> 1"));
    }

    private static long sum(List<String> lines, String key) {
        return lines.stream().mapToLong(l -> (long) NodeProcess.field(l, key)).sum();
    }
}
