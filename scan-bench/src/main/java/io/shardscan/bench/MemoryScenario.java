package io.shardscan.bench;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;

/**
 * Two node processes drain 5 000 000 pending rows with a no-op handler; each reports its peak heap
 * used (sampled every 10 ms, garbage included) and its peak heap used after a collection.
 */
final class MemoryScenario implements Scenario {

    private static final String TASK = "bench-memory";

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public ResultLine run(Bench bench, PrintStream out) throws Exception {
        int rows = bench.options().intValue("rows", 5_000_000);
        int nodeCount = bench.options().intValue("nodes", 2);
        String xmx = bench.options().value("xmx", "1g");
        Pg pg = bench.pg(2);
        out.printf("memory: %,d rows, %d node processes (-Xmx%s)%n", rows, nodeCount, xmx);
        pg.recreateTaskTable(rows, Math.max(1, rows / 4));
        bench.clearRedis(TASK);
        Table table = new Table(
                "memory: peak heap per node while draining " + rows + " rows",
                "node",
                "rows processed",
                "peak heap used MiB",
                "peak after GC MiB");
        double peak = 0;
        double peakLive = 0;
        double seconds;
        try (Nodes nodes = new Nodes()) {
            for (int i = 0; i < nodeCount; i++) {
                nodes.start("mem-" + i, xmx, List.of(bench.pgUrl(), bench.redisUrl(), TASK, "8", "0"));
            }
            nodes.awaitReady(Duration.ofSeconds(60));
            seconds = Await.seconds(Await.until(
                    "every row done",
                    Duration.ofHours(2),
                    Duration.ofMillis(500),
                    () -> nodes.ids().stream()
                                    .mapToDouble(id -> processed(nodes, id))
                                    .sum()
                            >= rows));
            for (String id : nodes.ids()) {
                nodes.stop(id, Duration.ofSeconds(30));
                String heap = nodes.last(id, "HEAP");
                double used = NodeProcess.field(heap, "used_mb");
                double live = NodeProcess.field(heap, "after_gc_mb");
                peak = Math.max(peak, used);
                peakLive = Math.max(peakLive, live);
                table.row(id, (long) NodeProcess.field(heap, "processed"), used, live);
            }
        }
        long left = pg.count("status <> 1");
        pg.jdbc().execute("DROP TABLE IF EXISTS " + Pg.TABLE);
        table.note(String.format("drained in %.1f s; rows not done afterwards: %d", seconds, left))
                .note("peak heap used includes garbage not yet collected, so it follows -Xmx and the collector;"
                        + " peak after GC is what a node keeps live")
                .print(out);
        return new ResultLine(name())
                .put("rows", rows)
                .put("nodes", nodeCount)
                .put("xmx", xmx)
                .put("peak_heap_mb", peak)
                .put("peak_live_heap_mb", peakLive)
                .put("seconds", seconds);
    }

    private static double processed(Nodes nodes, String id) {
        String heap = nodes.last(id, "HEAP");
        return heap == null ? 0 : NodeProcess.field(heap, "processed");
    }
}
