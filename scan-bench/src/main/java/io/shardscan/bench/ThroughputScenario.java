package io.shardscan.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.DoubleStream;

/**
 * Rows per second: Shardscan (K in-process nodes, each row bound to the record of a {@code @ScanTask}
 * method, see {@link ScanTaskJobs}) vs the raw JDBC limit (K threads)
 * vs db-scheduler (K instances, lock-and-fetch), in turn, on the same PostgreSQL. Every system runs
 * twice, all three one after another each time: the first pass pays for class loading and the JIT
 * (a third of Shardscan's CPU in a cold 10-last run, measured with JFR), the last measures the
 * code as a running service executes it. The RESULT line's ratios come from the last pass; the
 * first pass's are printed beside them.
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
        int passes = Math.max(2, bench.options().intValue("passes", 4));
        out.printf("throughput: %,d rows, %d nodes x %d workers, %d passes%n", rows, nodes, workers, passes);
        List<Pass> all = new ArrayList<>();
        for (int i = 1; i <= passes; i++) {
            all.add(pass(bench, out, i, rows, nodes, workers, dbRows));
        }
        Pass first = all.get(0);
        List<Pass> warm = all.subList(1, all.size());
        double shardscanRate = median(warm.stream().mapToDouble(Pass::shardscanRate));
        double rawRate = median(warm.stream().mapToDouble(Pass::rawRate));
        double dbRate = median(warm.stream().mapToDouble(Pass::dbSchedulerRate));
        try (Pg pg = bench.pg(1)) {
            pg.jdbc().execute("DROP TABLE IF EXISTS " + Pg.TABLE);
        }

        Table table = new Table(
                "throughput: handlers that do nothing else, same PostgreSQL, one after another",
                "pass",
                "system",
                "rows",
                "seconds",
                "rows/s",
                "not done after");
        for (Pass pass : all) {
            table.row(
                            pass.number,
                            "Shardscan (" + nodes + " in-process engines x " + workers
                                    + " workers, Redis leases, @ScanTask record)",
                            rows,
                            pass.shardscanSeconds,
                            pass.shardscanRate(),
                            pass.shardscanLeft)
                    .row(
                            pass.number,
                            "raw limit (" + nodes + " JDBC threads, keyset page + 1 UPDATE per page)",
                            pass.rawDone,
                            pass.rawSeconds,
                            pass.rawRate(),
                            pass.rawLeft)
                    .row(
                            pass.number,
                            "db-scheduler (" + nodes + " instances x " + workers + " threads, lock-and-fetch)",
                            dbRows,
                            pass.dbSchedulerSeconds,
                            pass.dbSchedulerRate(),
                            0);
        }
        table.note("Shardscan nodes are separate ScanEngine instances in this JVM (own pool and Redis connection);"
                        + " its time includes start-up and lease claiming")
                .note("Shardscan's handler is a @ScanTask method taking record BenchRow(long id, long shardKey),"
                        + " found by ScanTaskRegistry: rows are bound by column position and the fetch selects only"
                        + " the columns the record and the engine read; it received "
                        + String.format(
                                "%,d",
                                all.stream().mapToLong(Pass::shardscanBound).sum())
                        + " rows in all passes")
                .note(
                        "pass 1 runs on a cold JVM (class loading, JIT); each later pass repeats every system on a fresh table")
                .note("db-scheduler ran " + dbRows + " executions" + (dbRows < rows ? " (--dbscheduler-rows)" : "")
                        + "; its rows/s is computed from that count")
                .note(String.format(
                        "medians of passes 2-%d: Shardscan %,.0f, raw %,.0f, db-scheduler %,.0f rows/s",
                        passes, shardscanRate, rawRate, dbRate))
                .note(String.format(
                        "ratio vs raw %.2f, vs db-scheduler %.2f (pass 1 alone: %.2f and %.2f)",
                        shardscanRate / rawRate,
                        shardscanRate / dbRate,
                        first.ratioVsRaw(),
                        first.ratioVsDbScheduler()))
                .print(out);
        return new ResultLine(name())
                .put("rows", rows)
                .put("nodes", nodes)
                .put("dbscheduler_rows", dbRows)
                .put("passes", passes)
                .put("shardscan_rows_per_s", shardscanRate)
                .put("raw_rows_per_s", rawRate)
                .put("dbscheduler_rows_per_s", dbRate)
                .put("ratio_vs_raw", shardscanRate / rawRate)
                .put("ratio_vs_dbscheduler", shardscanRate / dbRate)
                .put("first_pass_ratio_vs_raw", first.ratioVsRaw())
                .put("first_pass_ratio_vs_dbscheduler", first.ratioVsDbScheduler());
    }

    /** The median of the rates, the mean of the middle two for an even count. */
    static double median(DoubleStream rates) {
        double[] sorted = rates.sorted().toArray();
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    private static Pass pass(Bench bench, PrintStream out, int number, int rows, int nodes, int workers, int dbRows)
            throws Exception {
        try (Pg pg = bench.pg(nodes + 2)) {
            return pass(bench, pg, out, number, rows, nodes, workers, dbRows);
        }
    }

    private static Pass pass(
            Bench bench, Pg pg, PrintStream out, int number, int rows, int nodes, int workers, int dbRows)
            throws Exception {
        pg.recreateTaskTable(rows, Math.max(1, rows / 4));
        pg.quiesce();
        ScanTaskJobs jobs = new ScanTaskJobs();
        double shardscan = Await.seconds(EngineRun.drain(bench, jobs.task(workers), nodes, rows));
        long shardscanLeft = pg.count("status <> 1");
        out.printf("  pass %d shardscan: %.2f s%n", number, shardscan);

        pg.recreateTaskTable(rows, Math.max(1, rows / 4));
        pg.quiesce();
        long start = System.nanoTime();
        long rawDone = RawRun.run(pg, nodes);
        double raw = Await.seconds(System.nanoTime() - start);
        long rawLeft = pg.count("status <> 1");
        out.printf("  pass %d raw: %.2f s%n", number, raw);

        double dbScheduler = Await.seconds(DbSchedulerRun.run(bench, nodes, workers, dbRows));
        out.printf("  pass %d db-scheduler: %.2f s%n", number, dbScheduler);
        return new Pass(
                number, rows, shardscan, shardscanLeft, jobs.bound(), rawDone, raw, rawLeft, dbRows, dbScheduler);
    }

    /** One run of every system. */
    private record Pass(
            int number,
            long rows,
            double shardscanSeconds,
            long shardscanLeft,
            long shardscanBound,
            long rawDone,
            double rawSeconds,
            long rawLeft,
            long dbRows,
            double dbSchedulerSeconds) {

        double shardscanRate() {
            return rows / shardscanSeconds;
        }

        double rawRate() {
            return rawDone / rawSeconds;
        }

        double dbSchedulerRate() {
            return dbRows / dbSchedulerSeconds;
        }

        double ratioVsRaw() {
            return shardscanRate() / rawRate();
        }

        double ratioVsDbScheduler() {
            return shardscanRate() / dbSchedulerRate();
        }
    }
}
