package io.shardscan.bench;

import io.shardscan.core.task.TaskHandler;
import java.io.PrintStream;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * One node, 8 workers, a handler of 5 ms with 1% of rows at 200 ms: how busy the workers stay,
 * {@code utilization = (total handler time / workers) / wall time}.
 */
final class SkewScenario implements Scenario {

    @Override
    public String name() {
        return "skew";
    }

    @Override
    public ResultLine run(Bench bench, PrintStream out) throws Exception {
        int rows = bench.options().intValue("rows", 20_000);
        int workers = bench.options().intValue("workers", 8);
        int fastMs = bench.options().intValue("handler-ms", 5);
        int slowMs = 200;
        Pg pg = bench.pg(2);
        out.printf(
                "skew: %,d rows, 1 node x %d workers, %d ms per row, 1%% of rows %d ms%n",
                rows, workers, fastMs, slowMs);
        pg.recreateTaskTable(rows, Math.max(1, rows / 4));
        AtomicLong handlerNanos = new AtomicLong();
        AtomicLong slowRows = new AtomicLong();
        TaskHandler.PerRow handler = (row, ctx) -> {
            long start = System.nanoTime();
            boolean slow = slow(row.id());
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(slow ? slowMs : fastMs));
            handlerNanos.addAndGet(System.nanoTime() - start);
            if (slow) {
                slowRows.incrementAndGet();
            }
            return null;
        };
        double wall = Await.seconds(EngineRun.drain(bench, "bench-skew", 1, workers, rows, handler));
        pg.jdbc().execute("DROP TABLE IF EXISTS " + Pg.TABLE);
        double busy = Await.seconds(handlerNanos.get());
        double ideal = busy / workers;
        double utilization = ideal / wall;
        new Table(
                        "skew: 1 node, " + workers + " workers",
                        "rows",
                        "slow rows",
                        "handler s (sum)",
                        "ideal wall s",
                        "wall s",
                        "utilization")
                .row(rows, slowRows.get(), busy, ideal, wall, utilization)
                .note("wall time runs from engine start (including the first lease claims) until every row is done")
                .print(out);
        return new ResultLine(name())
                .put("rows", rows)
                .put("workers", workers)
                .put("slow_rows", slowRows.get())
                .put("handler_seconds", busy)
                .put("wall_seconds", wall)
                .put("utilization", utilization);
    }

    /** 1% of ids, spread over shards by a multiplicative hash. */
    static boolean slow(long id) {
        return Math.floorMod(id * 0x9E3779B97F4A7C15L >>> 16, 100L) == 0;
    }
}
