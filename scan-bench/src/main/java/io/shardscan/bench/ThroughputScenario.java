package io.shardscan.bench;

import io.shardscan.core.TaskHandler;
import java.io.PrintStream;

/**
 * Rows per second of a no-op handler: Shardscan (K in-process nodes) vs the raw JDBC limit (K threads)
 * vs db-scheduler (K instances, lock-and-fetch), in turn, on the same PostgreSQL.
 */
final class ThroughputScenario implements Scenario {

    @Override
    public String name() {
        return "throughput";
    }

    @Override
    public ResultLine run(Bench bench, PrintStream out) throws Exception {
        int rows = bench.options().intValue("rows", 500_000);
        int nodes = bench.options().intValue("nodes", 2);
        int workers = bench.options().intValue("workers", 8);
        int dbRows = bench.options().intValue("dbscheduler-rows", Math.min(rows, 100_000));
        Pg pg = bench.pg(nodes + 2);
        String task = "bench-throughput";

        out.printf("throughput: %,d rows, %d nodes x %d workers%n", rows, nodes, workers);
        pg.recreateTaskTable(rows, Math.max(1, rows / 4));
        TaskHandler.PerRow noop = (row, ctx) -> null;
        double shardscan = Await.seconds(EngineRun.drain(bench, task, nodes, workers, rows, noop));
        long leftShardscan = pg.count("status <> 1");
        out.printf("  shardscan: %.2f s%n", shardscan);

        pg.recreateTaskTable(rows, Math.max(1, rows / 4));
        long start = System.nanoTime();
        long rawDone = RawRun.run(pg, nodes);
        double raw = Await.seconds(System.nanoTime() - start);
        long leftRaw = pg.count("status <> 1");
        out.printf("  raw: %.2f s%n", raw);

        double dbScheduler = Await.seconds(DbSchedulerRun.run(bench, nodes, workers, dbRows));
        out.printf("  db-scheduler: %.2f s%n", dbScheduler);
        pg.jdbc().execute("DROP TABLE IF EXISTS " + Pg.TABLE);

        double shardscanRate = rows / shardscan;
        double rawRate = rawDone / raw;
        double dbRate = dbRows / dbScheduler;
        new Table(
                        "throughput: no-op handler, same PostgreSQL, one after another",
                        "system",
                        "rows",
                        "seconds",
                        "rows/s",
                        "not done after")
                .row(
                        "Shardscan (" + nodes + " in-process engines x " + workers + " workers, Redis leases)",
                        rows,
                        shardscan,
                        shardscanRate,
                        leftShardscan)
                .row(
                        "raw limit (" + nodes + " JDBC threads, keyset page + 1 UPDATE per page)",
                        rawDone,
                        raw,
                        rawRate,
                        leftRaw)
                .row(
                        "db-scheduler (" + nodes + " instances x " + workers + " threads, lock-and-fetch)",
                        dbRows,
                        dbScheduler,
                        dbRate,
                        0)
                .note("Shardscan nodes are separate ScanEngine instances in this JVM (own pool and Redis connection);"
                        + " its time includes start-up and lease claiming")
                .note("db-scheduler ran " + dbRows + " executions" + (dbRows < rows ? " (--dbscheduler-rows)" : "")
                        + "; its rows/s is computed from that count")
                .note("ratio vs raw " + String.format("%.2f", shardscanRate / rawRate) + ", vs db-scheduler "
                        + String.format("%.2f", shardscanRate / dbRate))
                .print(out);
        return new ResultLine(name())
                .put("rows", rows)
                .put("nodes", nodes)
                .put("dbscheduler_rows", dbRows)
                .put("shardscan_rows_per_s", shardscanRate)
                .put("raw_rows_per_s", rawRate)
                .put("dbscheduler_rows_per_s", dbRate)
                .put("ratio_vs_raw", shardscanRate / rawRate)
                .put("ratio_vs_dbscheduler", shardscanRate / dbRate);
    }
}
