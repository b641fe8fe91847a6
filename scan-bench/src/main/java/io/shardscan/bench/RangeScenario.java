package io.shardscan.bench;

import io.shardscan.core.ScanEngine;
import io.shardscan.core.task.RangeJob;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Rows per second of a one-off job over a table without a status column: Shardscan's range mode
 * ({@code run: once}, K in-process nodes, the rows bound to the record of a {@code @ScanTask} method,
 * see {@link RangeJobs}) from its start until its run is recorded DONE, vs one raw JDBC keyset loop
 * calling the same method per row, on the same PostgreSQL. The table is only read, so every pass
 * reads the same one. Like {@link ThroughputScenario}, pass 1 pays for class loading and the JIT; the
 * RESULT line's figures are the medians of the later passes.
 */
final class RangeScenario implements Scenario {

    private static final int PAGE = 200;

    @Override
    public String name() {
        return "range";
    }

    @Override
    public ResultLine run(Bench bench, PrintStream out) throws Exception {
        int rows = bench.options().intValue("rows", 5_000_000);
        int nodes = bench.options().intValue("nodes", 2);
        int workers = bench.options().intValue("workers", 8);
        int passes = Math.max(2, bench.options().intValue("passes", 2));
        boolean transactional = Boolean.parseBoolean(bench.options().value("transactional", "false"));
        out.printf(
                "range: %,d ids, %d nodes x %d workers, %d passes%s%n",
                rows, nodes, workers, passes, transactional ? ", transactional" : "");
        List<Pass> all = new ArrayList<>();
        try (Pg pg = bench.pg(2)) {
            pg.recreateUserTable(rows);
            for (int i = 1; i <= passes; i++) {
                all.add(pass(bench, pg, out, i, rows, nodes, workers, transactional));
            }
            pg.jdbc().execute("DROP TABLE IF EXISTS " + RangeJobs.TABLE);
        }
        Pass first = all.get(0);
        List<Pass> warm = all.subList(1, all.size());
        double shardscanRate = ThroughputScenario.median(warm.stream().mapToDouble(Pass::shardscanRate));
        double rawRate = ThroughputScenario.median(warm.stream().mapToDouble(Pass::rawRate));

        Table table = new Table(
                "range: a one-off job over a table without a status column, handler does nothing else, same PostgreSQL",
                "pass",
                "system",
                "rows handled",
                "seconds",
                "rows/s",
                "ranges taken over");
        for (Pass pass : all) {
            table.row(
                            pass.number,
                            "Shardscan range mode (" + nodes + " in-process engines x " + workers
                                    + " workers, Redis cursor, @ScanTask record"
                                    + (transactional
                                            ? ", transactional: one transaction and position commit per row"
                                            : "")
                                    + "), start to DONE",
                            pass.shardscanHandled,
                            pass.shardscanSeconds,
                            pass.shardscanRate(),
                            pass.takenOver)
                    .row(
                            pass.number,
                            "raw keyset loop (1 JDBC thread, WHERE id > ? ORDER BY id LIMIT " + PAGE
                                    + "), quicker of before and after",
                            pass.rawHandled,
                            pass.rawSeconds,
                            pass.rawRate(),
                            "");
        }
        table.note("both page by " + PAGE + " ids on the primary key and call the same @ScanTask method per row;"
                        + " Shardscan claims ranges of 10,000 ids from the cursor and commits each range's position"
                        + " (one fenced UPDATE) once per commit interval (250 ms, the default) and at the range's end")
                .note("Shardscan's time runs from starting the engines until the run is DONE in scan_task:"
                        + " start-up, run snapshot and the end of the run included; processed rows in the ledger: "
                        + String.format("%,d", all.get(all.size() - 1).shardscanProcessed)
                        + " in the last pass")
                .note("ranges taken over: ranges whose epoch passed 1 (no node fails here, so each is one that"
                        + " waited out a lease TTL or a stall timeout)")
                .note("the raw loop runs before and after Shardscan in each pass; its quicker run counts")
                .note("pass 1 runs on a cold JVM (class loading, JIT); later passes scan the same table again")
                .note(String.format(
                        "medians of passes 2-%d: Shardscan %,.0f, raw %,.0f rows/s; ratio vs raw %.2f (pass 1 alone:"
                                + " %.2f)",
                        passes, shardscanRate, rawRate, shardscanRate / rawRate, first.ratioVsRaw()))
                .print(out);
        return new ResultLine(name())
                .put("rows", rows)
                .put("nodes", nodes)
                .put("passes", passes)
                .put("transactional", String.valueOf(transactional))
                .put("shardscan_rows_per_s", shardscanRate)
                .put("raw_rows_per_s", rawRate)
                .put("ratio_vs_raw", shardscanRate / rawRate)
                .put("first_pass_ratio_vs_raw", first.ratioVsRaw());
    }

    private static Pass pass(
            Bench bench, Pg pg, PrintStream out, int number, int rows, int nodes, int workers, boolean transactional)
            throws Exception {
        pg.coordinationTables();
        bench.clearRedis(RangeJobs.TASK);
        // the raw loop runs before and after Shardscan, and keeps the quicker: whatever the table's caches
        // give the side that reads second goes to the raw loop
        double rawBefore = raw(pg, out, number, rows, "before");
        RangeJobs jobs = new RangeJobs();
        RangeJob found = jobs.job(workers, PAGE);
        // --transactional true: each row's (empty) transaction commits the range's position past it
        RangeJob job = new RangeJob(found.task(), found.handler(), transactional);
        List<ScanEngine> engines = new ArrayList<>();
        List<Pg> pools = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            pools.add(bench.pg(workers + 2));
            engines.add(bench.rangeEngine(
                    RangeJobs.TASK + "-node-" + i, job, pools.get(i).dataSource()));
        }
        long start = System.nanoTime();
        long shardscanNanos;
        try {
            engines.forEach(ScanEngine::start);
            Await.until("the range run to end DONE", Duration.ofHours(1), Duration.ofMillis(20), () -> "DONE"
                    .equals(state(pg)));
            shardscanNanos = System.nanoTime() - start;
        } finally {
            engines.parallelStream().forEach(ScanEngine::stop);
            pools.forEach(Pg::close);
        }
        double shardscan = Await.seconds(shardscanNanos);
        long shardscanHandled = jobs.handled();
        Long processed = pg.jdbc()
                .queryForObject(
                        "SELECT COALESCE(SUM(processed), 0) FROM scan_range WHERE task = ?",
                        Long.class,
                        RangeJobs.TASK);
        Long takenOver = pg.jdbc()
                .queryForObject(
                        "SELECT COUNT(*) FROM scan_range WHERE task = ? AND epoch > 1", Long.class, RangeJobs.TASK);
        out.printf("  pass %d shardscan: %.2f s%n", number, shardscan);

        double raw = Math.min(rawBefore, raw(pg, out, number, rows, "after"));
        return new Pass(
                number,
                rows,
                shardscan,
                shardscanHandled,
                processed == null ? 0 : processed,
                takenOver == null ? 0 : takenOver,
                rows,
                raw);
    }

    /** One run of the raw loop over the whole table; its seconds. */
    private static double raw(Pg pg, PrintStream out, int number, int rows, String when) throws Exception {
        long start = System.nanoTime();
        long handled = RawKeysetRun.run(pg, new RangeJobs(), PAGE);
        double seconds = Await.seconds(System.nanoTime() - start);
        if (handled != rows) {
            throw new IllegalStateException("the raw loop handled " + handled + " rows of " + rows);
        }
        out.printf("  pass %d raw (%s Shardscan): %.2f s, %,d rows%n", number, when, seconds, handled);
        return seconds;
    }

    private static String state(Pg pg) {
        List<String> states = pg.jdbc()
                .queryForList(
                        "SELECT run_state FROM scan_task WHERE task = ? AND run_id IS NOT NULL",
                        String.class,
                        RangeJobs.TASK);
        return states.isEmpty() ? "" : states.get(0);
    }

    /** One run of both systems. */
    private record Pass(
            int number,
            long rows,
            double shardscanSeconds,
            long shardscanHandled,
            long shardscanProcessed,
            long takenOver,
            long rawHandled,
            double rawSeconds) {

        double shardscanRate() {
            return rows / shardscanSeconds;
        }

        double rawRate() {
            return rawHandled / rawSeconds;
        }

        double ratioVsRaw() {
            return shardscanRate() / rawRate();
        }
    }
}
