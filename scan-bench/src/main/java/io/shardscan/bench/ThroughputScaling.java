package io.shardscan.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The throughput scenario's list form, {@code --nodes 1,2,4}: whether Shardscan's coordination costs more
 * with more nodes. Per pass and node count, on a fresh table, the nodes run as separate JVMs on the one
 * PostgreSQL, each a Spring Boot application ({@link NodesRun}); then the raw limit once, for scale. The
 * figures per node count are aggregate rows/s, statements per 1 000 rows, WAL bytes per row and the lease
 * statements sent to PostgreSQL; the RESULT line holds their medians over passes 2..N (pass 1 alone with
 * {@code --passes 1}).
 */
final class ThroughputScaling {

    private ThroughputScaling() {}

    static ResultLine run(Bench bench, PrintStream out, String scenario, int[] nodeCounts) throws Exception {
        int rows = bench.options().intValue("rows", 500_000);
        int workers = bench.options().intValue("workers", 8);
        int passes = Math.max(1, bench.options().intValue("passes", 2));
        int rawThreads = Arrays.stream(nodeCounts).max().orElseThrow();
        out.printf(
                "throughput scaling: %,d rows, %s node processes x %d workers, %d passes%n",
                rows, Arrays.toString(nodeCounts), workers, passes);
        List<Pass> all = new ArrayList<>();
        try (Pg pg = bench.pg(2)) {
            for (int number = 1; number <= passes; number++) {
                List<NodesRun.Figures> shardscan = new ArrayList<>();
                for (int nodes : nodeCounts) {
                    pg.recreateTaskTable(rows, Math.max(1, rows / 4));
                    NodesRun.Figures figures = NodesRun.drain(bench, pg, nodes, workers, rows);
                    out.printf(
                            "  pass %d shardscan %d node(s): ready after %.1f s, leases balanced after %.1f s (not"
                                    + " timed), drained in %.2f s, %d leases lost meanwhile%n",
                            number,
                            nodes,
                            figures.readySeconds(),
                            figures.balancedSeconds(),
                            figures.measured().seconds(),
                            figures.leasesLost());
                    shardscan.add(figures);
                }
                pg.recreateTaskTable(rows, Math.max(1, rows / 4));
                pg.quiesce();
                Measured raw = ThroughputScenario.raw(bench, rawThreads);
                long rawLeft = pg.count("status <> 1");
                out.printf("  pass %d raw: %.2f s%n", number, raw.seconds());
                all.add(new Pass(number, shardscan, raw, rawLeft));
            }
            pg.jdbc().execute("DROP TABLE IF EXISTS " + Pg.TABLE);
        }
        List<Pass> counted = passes == 1 ? all : all.subList(1, all.size());

        Table table = new Table(
                "throughput scaling: Shardscan nodes as separate JVMs, same PostgreSQL, one node count after another",
                "pass",
                "system",
                "nodes",
                "rows/s",
                "statements/1000 rows",
                "WAL bytes/row",
                "lease statements",
                "rows",
                "seconds",
                "not done after");
        for (Pass pass : all) {
            for (NodesRun.Figures figures : pass.shardscan) {
                Measured m = figures.measured();
                table.row(
                        pass.number,
                        "Shardscan",
                        figures.nodes(),
                        m.rate(),
                        String.format(Locale.ROOT, "%.1f", statements(m)),
                        String.format(Locale.ROOT, "%.0f", wal(m)),
                        figures.leaseStatements(),
                        m.rows(),
                        m.seconds(),
                        figures.left());
            }
            Measured raw = pass.raw;
            table.row(
                    pass.number,
                    "raw limit",
                    rawThreads + " threads",
                    raw.rate(),
                    String.format(Locale.ROOT, "%.1f", statements(raw)),
                    String.format(Locale.ROOT, "%.0f", wal(raw)),
                    "-",
                    raw.rows(),
                    raw.seconds(),
                    pass.rawLeft);
        }
        ResultLine result = new ResultLine(scenario)
                .put("rows", rows)
                .put("nodes", joined(nodeCounts))
                .put("workers", workers)
                .put("passes", passes)
                .put("raw_threads", rawThreads);
        double rawRate = ThroughputScenario.median(counted.stream().mapToDouble(p -> p.raw.rate()));
        result.put("raw_rows_per_s", rawRate);
        StringBuilder medians = new StringBuilder();
        double firstStatements = Double.NaN;
        for (int i = 0; i < nodeCounts.length; i++) {
            int index = i;
            int nodes = nodeCounts[i];
            double rate = median(counted, index, f -> f.measured().rate());
            double statements = median(counted, index, f -> statements(f.measured()));
            double wal = median(counted, index, f -> wal(f.measured()));
            double leases = median(counted, index, NodesRun.Figures::leaseStatements);
            if (i == 0) {
                firstStatements = statements;
            }
            medians.append(String.format(
                    Locale.ROOT,
                    "%s%d node(s) %,.0f rows/s, %.1f statements/1000 rows (x%.2f), %.0f WAL bytes/row",
                    i == 0 ? "" : "; ",
                    nodes,
                    rate,
                    statements,
                    statements / firstStatements,
                    wal));
            String prefix = "nodes_" + nodes + "_";
            result.put(prefix + "rows_per_s", rate)
                    .put(prefix + "statements_per_1000", statements)
                    .put(prefix + "wal_bytes_per_row", wal)
                    .put(prefix + "lease_statements", leases);
        }
        table.note("each Shardscan node is a JVM of its own (-Xmx" + NodesRun.XMX
                        + ") running a Spring Boot application"
                        + " as a service does: SpringApplication with the starter's auto-configuration, scan.tasks."
                        + ScanTaskJobs.TASK + ".* properties (" + Pg.SHARDS + " shards, pages of 200, " + workers
                        + " workers), a @ScanTask method taking record BenchRow(long id, long shardKey), a pool of 10,"
                        + " leases in Redis")
                .note("start-up is not timed: the task is paused everywhere (scan_task, as the scan endpoint's pause)"
                        + " before the nodes start; once each printed READY and the " + Pg.SHARDS
                        + " leases are balanced among them, a CHECKPOINT, then the clock starts as each node is told"
                        + " to resume; each node is a fresh JVM in every pass, so its JIT warm-up is timed (K nodes"
                        + " compile at once on this machine's "
                        + Runtime.getRuntime().availableProcessors()
                        + " cores)")
                .note("rows/s = rows / (resume sent -> the nodes' counts of rows written back done add up to the"
                        + " rows); each node prints its count every " + ApplicationNodeProcess.REPORT_MILLIS
                        + " ms on standard output, the launcher reads them every " + NodesRun.POLL.toMillis()
                        + " ms; not done after = rows with status <> 1 once the nodes stopped, counted in the table")
                .note("statements: counted on each node's client side (its pool wrapped) from the resume on, one"
                        + " resume UPDATE per node included, reported over standard output and summed; WAL bytes:"
                        + " pg_current_wal_lsn()'s advance from the resume to the end; lease statements: those"
                        + " naming scan_lease or scan_member in their first 60 characters (the Redis coordinator"
                        + " sends none to PostgreSQL)")
                .note("raw limit: " + rawThreads + " JDBC threads in the launcher's JVM (keyset page + 1 UPDATE per"
                        + " page) on a fresh table after the nodes, for scale")
                .note(String.format(
                        Locale.ROOT,
                        "medians of %s: %s; raw %,.0f rows/s (x = statements/1000 rows vs %d node(s))",
                        passes == 1 ? "pass 1" : "passes 2-" + passes,
                        medians,
                        rawRate,
                        nodeCounts[0]))
                .print(out);
        return result;
    }

    private static double statements(Measured m) {
        return m.cost().statementsPer1000(m.rows());
    }

    private static double wal(Measured m) {
        return m.cost().walBytesPerRow(m.rows());
    }

    private static double median(List<Pass> passes, int index, ToDoubleFunction<NodesRun.Figures> f) {
        return ThroughputScenario.median(passes.stream().mapToDouble(p -> f.applyAsDouble(p.shardscan.get(index))));
    }

    private static String joined(int[] values) {
        return String.join(
                "_", Arrays.stream(values).mapToObj(Integer::toString).toList());
    }

    /** One pass: each node count's run, then the raw limit's. */
    private record Pass(int number, List<NodesRun.Figures> shardscan, Measured raw, long rawLeft) {}
}
