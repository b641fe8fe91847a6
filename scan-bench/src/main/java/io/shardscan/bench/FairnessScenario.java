package io.shardscan.bench;

import io.shardscan.core.EngineSettings;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.redis.RedisShardCoordinator;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * How one node's free workers go to shards that come due together: {@code --due-shards} (default 2 and
 * 8; 64 is all of them) of the 64 shards get {@code --rows} rows (default 3 200, 50 keys a shard) in one commit while
 * the node holds every shard, paused; then it resumes. The handler, a {@code @ScanTask} method, takes
 * {@code --handler-ms} (5) a row on {@code --workers} (8). Each count runs twice: without a worker budget,
 * and with {@code scan.max-workers: 200}, the starter's default. Per run: how long after the first row the
 * last due shard's first row started (with 2, the second shard's), rows per second from the first row's
 * start to the last row's end, and utilization (handler time / workers / that time).
 */
final class FairnessScenario implements Scenario {

    /** The starter's default {@code scan.max-workers}. */
    static final int STARTER_MAX_WORKERS = 200;

    @Override
    public String name() {
        return "fairness";
    }

    @Override
    public ResultLine run(Bench bench, PrintStream out) throws Exception {
        int rows = bench.options().intValue("rows", 3_200);
        int workers = bench.options().intValue("workers", 8);
        int handlerMs = bench.options().intValue("handler-ms", 5);
        int[] dueShards = Arrays.stream(
                        bench.options().value("due-shards", "2,8").split(","))
                .mapToInt(s -> Integer.parseInt(s.trim()))
                .toArray();
        out.printf(
                "fairness: %,d rows over %s of %d shards, 1 node x %d workers, %d ms a row%n",
                rows, Arrays.toString(dueShards), Pg.SHARDS, workers, handlerMs);
        Table table = new Table(
                "fairness: shards due together, " + workers + " workers, " + handlerMs + " ms a row",
                "workers from",
                "due shards",
                "rows",
                "last due shard's first row ms",
                "rows/s",
                "utilization");
        ResultLine result = new ResultLine(name()).put("rows", rows).put("workers", workers);
        for (Integer maxWorkers : Arrays.asList(null, STARTER_MAX_WORKERS)) {
            String from = maxWorkers == null ? "task" : "budget";
            for (int due : dueShards) {
                Figures figures = drain(bench, due, rows, workers, handlerMs, maxWorkers);
                out.printf("  %s, %d due shards: done%n", from, due);
                table.row(
                        maxWorkers == null ? "the task's own" : "scan.max-workers " + maxWorkers,
                        due,
                        rows,
                        figures.lastShardStartMs,
                        figures.rowsPerSecond,
                        figures.utilization);
                String key = from + "_" + due + "_";
                result.put(key + "last_shard_start_ms", figures.lastShardStartMs)
                        .put(key + "rows_per_s", figures.rowsPerSecond)
                        .put(key + "utilization", figures.utilization);
            }
        }
        try (Pg pg = bench.pg(1)) {
            pg.jdbc().execute("DROP TABLE IF EXISTS " + Pg.TABLE);
        }
        table.note("times on this JVM's monotonic clock, from the first row's start; each run on a fresh node and"
                        + " table, Redis leases, the node paused while the rows are inserted in one statement")
                .note("the handler is a @ScanTask method taking record BenchRow(long id, long shardKey) and the"
                        + " ScanContext, found by ScanTaskRegistry; it parks for the row's time")
                .print(out);
        return result;
    }

    /** One run: a node holding every shard, {@code due} of them with rows, until every row is done. */
    private static Figures drain(
            Bench bench, int due, int rows, int workers, int handlerMs, @Nullable Integer maxWorkers) throws Exception {
        if (due < 1 || due > Pg.SHARDS) {
            throw new IllegalArgumentException("--due-shards: each between 1 and " + Pg.SHARDS + ", not " + due);
        }
        FairnessJobs jobs = new FairnessJobs(Duration.ofMillis(handlerMs));
        ScanEngine.ScanTask task = jobs.task(workers);
        String name = FairnessJobs.TASK;
        try (Pg pg = new Pg(bench.pgUrl(), 2);
                Pg pool = new Pg(bench.pgUrl(), workers + 2)) {
            pg.recreateTaskTable(0, 1);
            bench.clearRedis(name);
            ScanEngine engine = new ScanEngine(
                    List.of(task),
                    new JdbcTaskStore(pool.dataSource()),
                    new RedisShardCoordinator(bench.redis()),
                    new EngineSettings(
                            name + "-node",
                            Bench.LEASE_TTL,
                            Bench.RENEW_INTERVAL,
                            Bench.LEASE_TTL,
                            Duration.ofSeconds(10),
                            maxWorkers),
                    ScanClock.system(),
                    ScanListener.NONE);
            engine.start();
            try {
                Await.until(
                        "the node to hold every shard",
                        Duration.ofMinutes(2),
                        Duration.ofMillis(20),
                        () -> engine.task(name).ownedShards().size() == Pg.SHARDS);
                engine.task(name).pause();
                // one statement, so every due shard's rows are there for the same idle probe; shard = key mod 64
                pg.jdbc()
                        .update(
                                "INSERT INTO " + Pg.TABLE + " (id, shard_key, updated_at) SELECT g, MOD(g, ?) + ? *"
                                        + " MOD(g / ?, 50), LOCALTIMESTAMP - INTERVAL '1 hour'"
                                        + " FROM generate_series(1, ?) g",
                                due,
                                Pg.SHARDS,
                                due,
                                rows);
                pg.jdbc().execute("ANALYZE " + Pg.TABLE);
                engine.task(name).resume();
                Await.until(
                        rows + " rows done",
                        Duration.ofMinutes(5),
                        Duration.ofMillis(5),
                        () -> engine.task(name).stats().processed() >= rows);
            } finally {
                engine.stop();
            }
        }
        Map<Integer, Long> starts = jobs.firstStarted();
        if (starts.size() != due) {
            throw new IllegalStateException(starts.size() + " shards ran rows, not " + due);
        }
        long first = Collections.min(starts.values());
        long lastShard = Collections.max(starts.values());
        double wall = (jobs.lastEnded() - first) / 1e9;
        return new Figures((lastShard - first) / 1e6, rows / wall, jobs.handlerSeconds() / workers / wall);
    }

    private record Figures(double lastShardStartMs, double rowsPerSecond, double utilization) {}
}
