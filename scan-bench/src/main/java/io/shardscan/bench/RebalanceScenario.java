package io.shardscan.bench;

import io.shardscan.core.ScanEngine;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.redis.RedisShardCoordinator;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Nodes (in-process engines on Redis) join one by one up to 8 over 64 shards. At each join: the shard
 * moves seen (owner changes, polled every 20 ms, counted until one renew interval after balance)
 * vs the least possible (the newcomer's ⌊64/k⌋), and the seconds until the assignment is balanced.
 */
final class RebalanceScenario implements Scenario {

    private static final String TASK = "bench-rebalance";

    @Override
    public String name() {
        return "rebalance";
    }

    @Override
    public ResultLine run(Bench bench, PrintStream out) throws Exception {
        int maxNodes = bench.options().intValue("nodes", 8);
        Pg pg = bench.pg(2);
        out.printf("rebalance: up to %d nodes joining one by one, %d shards%n", maxNodes, Pg.SHARDS);
        pg.recreateTaskTable(0, 1);
        bench.clearRedis(TASK);
        ShardCoordinator coordinator = new RedisShardCoordinator(bench.redis());
        TaskHandler.PerRow noop = (row, ctx) -> null;
        Table table = new Table(
                "rebalance: joins over " + Pg.SHARDS + " shards (renew interval " + Bench.RENEW_INTERVAL.toSeconds()
                        + " s)",
                "nodes",
                "moves",
                "least possible",
                "excess",
                "balanced after s");
        List<ScanEngine> engines = new ArrayList<>();
        Map<Integer, String> lastOwner = new HashMap<>();
        int worstExcess = 0;
        int totalExcess = 0;
        double worstSeconds = 0;
        try {
            for (int k = 1; k <= maxNodes; k++) {
                ScanEngine engine = bench.engine("rb-" + k, Bench.task(TASK, 2), noop, pg.dataSource());
                engines.add(engine);
                List<String> live = engines.stream().map(ScanEngine::nodeId).toList();
                int[] moves = {0};
                long start = System.nanoTime();
                engine.start();
                long balancedNanos =
                        Await.until("balance at " + k + " nodes", Duration.ofSeconds(60), Duration.ofMillis(20), () -> {
                            moves[0] += track(coordinator, lastOwner);
                            return Leases.balanced(Leases.owners(coordinator, TASK), live, Pg.SHARDS);
                        });
                long settle = System.nanoTime() + Bench.RENEW_INTERVAL.toNanos();
                while (System.nanoTime() < settle) {
                    moves[0] += track(coordinator, lastOwner);
                    TimeUnit.MILLISECONDS.sleep(20);
                }
                int least = k == 1 ? 0 : Pg.SHARDS / k;
                int excess = Math.max(0, moves[0] - least);
                double seconds = Await.seconds(balancedNanos);
                worstExcess = Math.max(worstExcess, excess);
                totalExcess += excess;
                worstSeconds = Math.max(worstSeconds, seconds);
                table.row(k, moves[0], least, excess, seconds);
                out.printf("  %d nodes: %d moves (least %d), balanced after %.2f s%n", k, moves[0], least, seconds);
            }
        } finally {
            engines.parallelStream().forEach(ScanEngine::stop);
            pg.jdbc().execute("DROP TABLE IF EXISTS " + Pg.TABLE);
        }
        table.note("a move = a shard whose live owner changed from one node to another; first claims are not moves")
                .note("engines are in this JVM, each with its own Redis connection; the table has no pending rows")
                .print(out);
        return new ResultLine(name())
                .put("nodes", maxNodes)
                .put("shards", Pg.SHARDS)
                .put("excess_moves", worstExcess)
                .put("excess_moves_total", totalExcess)
                .put("max_balance_seconds", worstSeconds)
                .put("renew_interval_seconds", Bench.RENEW_INTERVAL.toSeconds());
    }

    /** Counts shards whose owner changed from one node to another since the last call. */
    private static int track(ShardCoordinator coordinator, Map<Integer, String> lastOwner) {
        int moved = 0;
        for (Map.Entry<Integer, String> entry : Leases.owners(coordinator, TASK).entrySet()) {
            String previous = lastOwner.put(entry.getKey(), entry.getValue());
            if (previous != null && !previous.equals(entry.getValue())) {
                moved++;
            }
        }
        return moved;
    }
}
