package io.shardscan.bench;

import io.shardscan.testsupport.CountingDataSource;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToDoubleFunction;
import java.util.stream.DoubleStream;

/**
 * What draining a table costs: Shardscan (K in-process nodes, each row bound to the record of a
 * {@code @ScanTask} method, see {@link ScanTaskJobs}) vs the raw JDBC limit (K threads) vs the SKIP
 * LOCKED batch poller teams write themselves (K pools x the same threads, {@link SkipLockedRun}) vs
 * db-scheduler (K instances, lock-and-fetch), in turn, on the same PostgreSQL. The primary figures are
 * the database's cost per row ({@link DbCost}: statements, server transactions, WAL bytes), which do not
 * move with the machine's load; rows per second stand beside them. Every system runs {@code --passes}
 * times, all one after another each time: the first pass pays for class loading and the JIT (a third of
 * Shardscan's CPU in a cold 10-last run, measured with JFR) and is reported apart; the RESULT line holds
 * the medians of the later passes. With a list of node counts ({@code --nodes 1,2,4}) it measures how
 * Shardscan's cost scales with its nodes instead, each node a JVM of its own ({@link ThroughputScaling}).
 */
final class ThroughputScenario implements Scenario {

    @Override
    public String name() {
        return "throughput";
    }

    @Override
    public ResultLine run(Bench bench, PrintStream out) throws Exception {
        int[] nodeCounts = bench.options().intValues("nodes", 2);
        if (nodeCounts.length > 1) {
            return ThroughputScaling.run(bench, out, name(), nodeCounts);
        }
        int rows = bench.options().intValue("rows", 500_000);
        int nodes = nodeCounts[0];
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
        try (Pg pg = bench.pg(1)) {
            pg.jdbc().execute("DROP TABLE IF EXISTS " + Pg.TABLE);
        }

        Table table = new Table(
                "throughput: handlers that do nothing else, same PostgreSQL, one after another",
                "pass",
                "system",
                "statements/1000 rows",
                "WAL bytes/row",
                "rows",
                "seconds",
                "rows/s",
                "not done after");
        for (Pass pass : all) {
            row(
                    table,
                    pass.number,
                    "Shardscan (" + nodes + " in-process engines x " + workers
                            + " workers, Redis leases, @ScanTask record; per-key order, fenced)",
                    pass.shardscan,
                    pass.shardscanLeft);
            row(
                    table,
                    pass.number,
                    "raw limit (" + nodes + " JDBC threads, keyset page + 1 UPDATE per page)",
                    pass.raw,
                    pass.rawLeft);
            row(
                    table,
                    pass.number,
                    "SKIP LOCKED poller (" + nodes + " pools x " + workers
                            + " threads, claim 200 + 1 UPDATE; no order, no fence)",
                    pass.skipLocked,
                    pass.skipLockedLeft);
            row(
                    table,
                    pass.number,
                    "db-scheduler (" + nodes + " instances x " + workers + " threads, lock-and-fetch)",
                    pass.dbScheduler,
                    0);
        }
        Figures shardscan = Figures.of(warm, p -> p.shardscan);
        Figures raw = Figures.of(warm, p -> p.raw);
        Figures skipLocked = Figures.of(warm, p -> p.skipLocked);
        Figures dbScheduler = Figures.of(warm, p -> p.dbScheduler);
        table.note("statements are counted on the client side, each system's pools wrapped; WAL bytes are"
                        + " pg_current_wal_lsn()'s advance over the system's run alone; Shardscan's leases are in"
                        + " Redis, so none of its statements are lease renewals")
                .note("Shardscan nodes are separate ScanEngine instances in this JVM (own pool and Redis connection);"
                        + " its time includes start-up and lease claiming")
                .note("Shardscan's handler is a @ScanTask method taking record BenchRow(long id, long shardKey),"
                        + " found by ScanTaskRegistry: rows are bound by column position and the fetch selects only"
                        + " the columns the record and the engine read; it received "
                        + String.format(
                                "%,d",
                                all.stream().mapToLong(p -> p.shardscanBound).sum())
                        + " rows in all passes")
                .note("the SKIP LOCKED poller claims with UPDATE ... WHERE id IN (SELECT id ... WHERE status = 0"
                        + " ORDER BY id LIMIT 200 FOR UPDATE SKIP LOCKED) RETURNING id on an index of the pending rows"
                        + " by id, calls a no-op per row and marks the batch done with one UPDATE; what it does not"
                        + " give: order per key, fencing of a stalled thread, retry tiers, reclaiming a dead"
                        + " thread's claimed rows")
                .note(
                        "pass 1 runs on a cold JVM (class loading, JIT); each later pass repeats every system on a fresh table")
                .note("db-scheduler ran " + dbRows + " executions" + (dbRows < rows ? " (--dbscheduler-rows)" : "")
                        + "; its figures are computed from that count")
                .note(String.format(
                        "medians of passes 2-%d: Shardscan %,.0f, raw %,.0f, SKIP LOCKED %,.0f, db-scheduler %,.0f rows/s;"
                                + " statements/1000 rows %.1f, %.1f, %.1f, %.1f; WAL bytes/row %.0f, %.0f, %.0f, %.0f",
                        passes,
                        shardscan.rate,
                        raw.rate,
                        skipLocked.rate,
                        dbScheduler.rate,
                        shardscan.statements,
                        raw.statements,
                        skipLocked.statements,
                        dbScheduler.statements,
                        shardscan.wal,
                        raw.wal,
                        skipLocked.wal,
                        dbScheduler.wal))
                .note(String.format(
                        "ratio vs raw %.2f, vs SKIP LOCKED %.2f, vs db-scheduler %.2f (pass 1 alone: %.2f, %.2f and"
                                + " %.2f)",
                        shardscan.rate / raw.rate,
                        shardscan.rate / skipLocked.rate,
                        shardscan.rate / dbScheduler.rate,
                        first.shardscan.rate() / first.raw.rate(),
                        first.shardscan.rate() / first.skipLocked.rate(),
                        first.shardscan.rate() / first.dbScheduler.rate()))
                .print(out);
        return new ResultLine(name())
                .put("rows", rows)
                .put("nodes", nodes)
                .put("dbscheduler_rows", dbRows)
                .put("passes", passes)
                .put("shardscan_rows_per_s", shardscan.rate)
                .put("raw_rows_per_s", raw.rate)
                .put("skiplocked_rows_per_s", skipLocked.rate)
                .put("dbscheduler_rows_per_s", dbScheduler.rate)
                .put("ratio_vs_raw", shardscan.rate / raw.rate)
                .put("ratio_vs_skiplocked", shardscan.rate / skipLocked.rate)
                .put("ratio_vs_dbscheduler", shardscan.rate / dbScheduler.rate)
                .put("first_pass_ratio_vs_raw", first.shardscan.rate() / first.raw.rate())
                .put("first_pass_ratio_vs_dbscheduler", first.shardscan.rate() / first.dbScheduler.rate())
                .put("shardscan_statements_per_1000", shardscan.statements)
                .put("raw_statements_per_1000", raw.statements)
                .put("skiplocked_statements_per_1000", skipLocked.statements)
                .put("dbscheduler_statements_per_1000", dbScheduler.statements)
                .put("shardscan_wal_bytes_per_row", shardscan.wal)
                .put("raw_wal_bytes_per_row", raw.wal)
                .put("skiplocked_wal_bytes_per_row", skipLocked.wal)
                .put("dbscheduler_wal_bytes_per_row", dbScheduler.wal);
    }

    private static void row(Table table, int pass, String system, Measured measured, long left) {
        DbCost cost = measured.cost();
        table.row(
                pass,
                system,
                String.format("%.1f", cost.statementsPer1000(measured.rows())),
                String.format("%.0f", cost.walBytesPerRow(measured.rows())),
                measured.rows(),
                measured.seconds(),
                measured.rate(),
                left);
    }

    /** A system's medians over passes: rows/s, statements per 1000 rows, WAL bytes per row. */
    private record Figures(double rate, double statements, double wal) {
        static Figures of(List<Pass> passes, java.util.function.Function<Pass, Measured> system) {
            return new Figures(
                    median(passes, system, Measured::rate),
                    median(passes, system, m -> m.cost().statementsPer1000(m.rows())),
                    median(passes, system, m -> m.cost().walBytesPerRow(m.rows())));
        }

        private static double median(
                List<Pass> passes, java.util.function.Function<Pass, Measured> system, ToDoubleFunction<Measured> f) {
            return ThroughputScenario.median(passes.stream().map(system).mapToDouble(f));
        }
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
        Measured shardscan = EngineRun.drain(bench, jobs.task(workers), nodes, rows);
        long shardscanLeft = pg.count("status <> 1");
        out.printf("  pass %d shardscan: %.2f s%n", number, shardscan.seconds());

        pg.recreateTaskTable(rows, Math.max(1, rows / 4));
        pg.quiesce();
        Measured raw = raw(bench, nodes);
        long rawLeft = pg.count("status <> 1");
        out.printf("  pass %d raw: %.2f s%n", number, raw.seconds());

        pg.recreateTaskTable(rows, Math.max(1, rows / 4));
        SkipLockedRun.createIndex(pg);
        pg.quiesce();
        LongAdder handled = new LongAdder();
        Measured skipLocked = SkipLockedRun.run(bench, nodes, workers, id -> handled.increment());
        long skipLockedLeft = pg.count("status <> 1");
        out.printf("  pass %d SKIP LOCKED poller: %.2f s%n", number, skipLocked.seconds());

        Measured dbScheduler = DbSchedulerRun.run(bench, nodes, workers, dbRows);
        out.printf("  pass %d db-scheduler: %.2f s%n", number, dbScheduler.seconds());
        return new Pass(
                number, shardscan, shardscanLeft, jobs.bound(), raw, rawLeft, skipLocked, skipLockedLeft, dbScheduler);
    }

    /** The raw limit on the filled table: {@code threads} JDBC threads, their pool counted. */
    static Measured raw(Bench bench, int threads) throws Exception {
        try (Pg pool = bench.pg(threads)) {
            CountingDataSource counting = new CountingDataSource(pool.dataSource());
            DbCost.Window cost = DbCost.Window.open(bench.pgUrl());
            long start = System.nanoTime();
            long done = RawRun.run(counting.dataSource(), threads);
            return new Measured(System.nanoTime() - start, done, cost.close(counting.total()));
        }
    }

    /** One run of every system. */
    private record Pass(
            int number,
            Measured shardscan,
            long shardscanLeft,
            long shardscanBound,
            Measured raw,
            long rawLeft,
            Measured skipLocked,
            long skipLockedLeft,
            Measured dbScheduler) {}
}
