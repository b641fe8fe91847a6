package io.shardscan.bench;

import io.shardscan.core.spi.FetchRequest;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.jdbc.SchemaDdl;
import java.io.PrintStream;
import java.util.Arrays;

/**
 * The time of one Shardscan fetch (a first page of 200 from the start of a shard, through {@link
 * JdbcTaskStore}) when no row is done vs when the lowest 90% of ids are done, before and after VACUUM.
 */
final class FlatnessScenario implements Scenario {

    private static final int PASSES = 5;

    @Override
    public String name() {
        return "flatness";
    }

    @Override
    public ResultLine run(Bench bench, PrintStream out) throws Exception {
        int rows = bench.options().intValue("rows", 1_000_000);
        Pg pg = bench.pg(2);
        out.printf("flatness: %,d rows%n", rows);
        pg.recreateTaskTable(rows, Math.max(1, rows / 4));
        TaskDefinition task = Bench.task("bench-flatness", 8);
        JdbcTaskStore store = new JdbcTaskStore(pg.dataSource());
        store.inspect(task);

        measure(store, task); // warm-up: JIT, pool, plan cache; not counted
        double[] early = measure(store, task);
        long done = (long) (rows * 0.9);
        pg.jdbc().update("UPDATE " + Pg.TABLE + " SET status = 1, updated_at = LOCALTIMESTAMP WHERE id <= ?", done);
        double[] late = measure(store, task);
        String plan = String.join(
                "\n      ",
                pg.jdbc()
                        .queryForList(
                                "EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM " + Pg.TABLE + " WHERE status = 0 AND "
                                        + SchemaDdl.shardOf("shard_key", Pg.SHARDS)
                                        + " = 7 AND retry_count = 0 AND id > 0 ORDER BY id LIMIT 200",
                                String.class));
        pg.execute("VACUUM ANALYZE " + Pg.TABLE);
        double[] vacuumed = measure(store, task);
        pg.jdbc().execute("DROP TABLE IF EXISTS " + Pg.TABLE);

        double ratio = median(late) / median(early);
        double ratioVacuumed = median(vacuumed) / median(early);
        double ratioFirstPass = median(Arrays.copyOf(late, 64)) / median(Arrays.copyOf(early, 64));
        new Table(
                        "flatness: one fetch of a shard's first 200 pending rows, " + PASSES + " passes over 64 shards",
                        "state",
                        "median ms",
                        "first pass median ms",
                        "p95 ms",
                        "vs none done")
                .row("none done", median(early), median(Arrays.copyOf(early, 64)), p95(early), 1.0)
                .row("90% done, before VACUUM", median(late), median(Arrays.copyOf(late, 64)), p95(late), ratio)
                .row(
                        "90% done, after VACUUM",
                        median(vacuumed), median(Arrays.copyOf(vacuumed, 64)), p95(vacuumed), ratioVacuumed)
                .note("done rows are the lowest 90% of ids, as a keyset drain leaves them, set by one UPDATE;"
                        + " one unmeasured warm-up pass runs first")
                .note("the first pass after the UPDATE still walks dead index entries (until index scans mark them"
                        + " dead or VACUUM runs); later passes skip them")
                .note("plan of one late fetch before VACUUM:\n      " + plan)
                .print(out);
        return new ResultLine(name())
                .put("rows", rows)
                .put("early_ms", median(early))
                .put("late_ms", median(late))
                .put("late_vacuumed_ms", median(vacuumed))
                .put("ratio_late_vs_early", ratio)
                .put("ratio_first_pass_late_vs_early", ratioFirstPass)
                .put("ratio_vacuumed_vs_early", ratioVacuumed);
    }

    private static double[] measure(JdbcTaskStore store, TaskDefinition task) {
        double[] millis = new double[PASSES * Pg.SHARDS];
        for (int pass = 0; pass < PASSES; pass++) {
            for (int shard = 0; shard < Pg.SHARDS; shard++) {
                FetchRequest request = new FetchRequest(shard, 0, 0, null, 0, 200);
                long start = System.nanoTime();
                store.fetch(task, request);
                millis[pass * Pg.SHARDS + shard] = (System.nanoTime() - start) / 1e6;
            }
        }
        return millis;
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    static double p95(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)];
    }
}
