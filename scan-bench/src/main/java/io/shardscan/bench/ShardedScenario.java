package io.shardscan.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * Seed 001's sharded orders (issue 24 §1): {@code --tables} (default 1024) tables {@code tb_order_NNNN} over
 * {@code --databases} (default 4) databases, rows only in the last {@code --busy} (default 24), the seed's worst
 * case. Two sides, one after the other, each a Spring Boot application with {@code @ScanTask} handlers and Redis
 * leases: one sharded task ({@code scan.tasks.X.tables} and {@code data-sources}, one DataSource bean per
 * database, one shard per table) against one single-table task per table ({@code scan.tasks.X.table}, one shard
 * each). A single-table task runs on Shardscan's own DataSource only, so that side is one application per
 * database, each with its database's tables, as services had to be split before sharded tasks. Per side: the
 * statements per second each database receives while all tables are empty ({@code --seconds}, default 60), the
 * pickup of {@code --pickups} (default 10) rows inserted one at a time into busy tables while idle, and the
 * rows per second draining {@code --rows} (default 48,000) spread over the busy tables; the threads it runs.
 */
final class ShardedScenario implements Scenario {

    /** The prefix of every task name, whose Redis keys and coordination rows each side clears. */
    static final String TASK = "bench-sharded";

    @Override
    public String name() {
        return "sharded";
    }

    @Override
    public ResultLine run(Bench bench, PrintStream out) throws Exception {
        int tables = bench.options().intValue("tables", 1024);
        int databases = bench.options().intValue("databases", 4);
        int busy = bench.options().intValue("busy", 24);
        int workers = bench.options().intValue("workers", 8);
        String loadBefore = loadAverage();
        out.printf(
                "sharded: %,d tables over %d databases, rows in the last %d; load average %s%n",
                tables, databases, busy, loadBefore);
        OrderTables orders = OrderTables.create(bench.pgUrl(), tables, databases);
        ShardedRun.Settings settings = new ShardedRun.Settings(
                bench.options().intValue("seconds", 60),
                bench.options().intValue("warmup-probes", 3),
                bench.options().intValue("hold-seconds", 180),
                bench.options().intValue("pickups", 10),
                orders.busy(busy),
                bench.options().intValue("rows", 48_000),
                workers);
        ShardedRun.Figures sharded = ShardedRun.measure(
                bench, out, orders, settings, "sharded task", pools -> shardedTask(orders, workers, pools));
        orders.truncate(settings.busy());
        ShardedRun.Figures single = ShardedRun.measure(
                bench, out, orders, settings, "single-table tasks", pools -> singleTableTasks(orders, workers, pools));
        orders.truncate(settings.busy());
        String loadAfter = loadAverage();

        Table table = new Table(
                "sharded: " + String.format("%,d", tables) + " tables over " + databases + " databases, rows in " + busy
                        + " (the last), load average " + loadBefore + " before, " + loadAfter + " after",
                "figure",
                "1 sharded task",
                String.format("%,d single-table tasks", tables));
        table.row("Spring Boot applications", sharded.applications(), single.applications());
        table.row(
                "tasks / logical shards",
                sharded.tasks() + " / " + sharded.shards(),
                single.tasks() + " / " + single.shards());
        table.row("start to every shard held and probed (s)", held(sharded), held(single));
        table.row("shards held when the idle window opened", sharded.shardsHeld(), single.shardsHeld());
        table.row("leases lost in the idle window", sharded.leasesLost(), single.leasesLost());
        table.row("load average at the idle window's end", sharded.idleLoad(), single.idleLoad());
        table.row("threads, idle", sharded.threadsIdle(), single.threadsIdle());
        table.row("threads, after draining", sharded.threadsDrained(), single.threadsDrained());
        for (int d = 0; d < databases; d++) {
            table.row(
                    "idle statements/s, " + OrderTables.DATABASE_PREFIX + d,
                    sharded.idlePerSecond()[d],
                    single.idlePerSecond()[d]);
        }
        table.row("idle statements/s, all databases", sharded.idleTotal(), single.idleTotal());
        table.row(
                "pickup p50 (ms)",
                sharded.pickups().percentile(50),
                single.pickups().percentile(50));
        table.row(
                "pickup p95 (ms)",
                sharded.pickups().percentile(95),
                single.pickups().percentile(95));
        table.row("pickup max (ms)", sharded.pickups().max(), single.pickups().max());
        table.row(
                "pickups not started within " + ShardedRun.PICKUP_TIMEOUT.toSeconds() + " s",
                sharded.pickupsMissed(),
                single.pickupsMissed());
        table.row("drain rows/s", sharded.rowsPerSecond(), single.rowsPerSecond());
        table.row("drain seconds", sharded.drainSeconds(), single.drainSeconds());
        table.row("drain rows handled", sharded.rowsHandled(), single.rowsHandled());
        table.row("drain statements/1000 rows", sharded.drainStatementsPer1000(), single.drainStatementsPer1000());
        table.note(
                        "one side after the other on the same PostgreSQL; each a Spring Boot application (SpringApplication,"
                                + " Shardscan's auto-configuration, scan.tasks.* properties, @ScanTask methods), leases in Redis")
                .note("sharded: scan.tasks." + TASK + ".tables=tb_order_{0000.." + String.format("%04d", tables - 1)
                        + "}, data-sources: one DataSource bean per database, shards 1 per table, workers " + workers
                        + "; one application")
                .note("single-table: scan.tasks." + TASK + "-tNNNN.table=tb_order_NNNN, shards 1, workers " + workers
                        + " each; a single-table task reads Shardscan's own DataSource only, so one application per"
                        + " database, each with that database's " + (tables / databases) + " tasks")
                .note("statements are counted on the client side, each database's pool (Hikari, " + ShardedRun.POOL
                        + " connections) wrapped, over " + settings.seconds() + " s with every table empty, after every"
                        + " shard was held and probed " + settings.warmupProbes() + " times; no backlog counter runs")
                .note("pickup: " + settings.pickups() + " rows inserted one at a time into the busy tables, each after"
                        + " a random pause of up to " + ShardedRun.TIER0.toSeconds() + " s (the default tier 0"
                        + " interval), from the insert's commit to its handler's start; no wake-up is sent")
                .note("drain: " + String.format("%,d", settings.rows()) + " rows over the " + busy + " busy tables, one"
                        + " INSERT each, from the first insert to the last handler; handlers do nothing")
                .note("threads: the JVM's live threads above those before the side started");
        idleKinds(table, "sharded", sharded);
        idleKinds(table, "single-table", single);
        table.print(out);
        return new ResultLine(name())
                .put("tables", tables)
                .put("databases", databases)
                .put("busy_tables", busy)
                .put("rows", settings.rows())
                .put("sharded_idle_statements_per_s", sharded.idleTotal())
                .put("single_idle_statements_per_s", single.idleTotal())
                .put("sharded_pickup_p50_ms", sharded.pickups().percentile(50))
                .put("sharded_pickup_p95_ms", sharded.pickups().percentile(95))
                .put("single_pickup_p50_ms", single.pickups().percentile(50))
                .put("single_pickup_p95_ms", single.pickups().percentile(95))
                .put("sharded_rows_per_s", sharded.rowsPerSecond())
                .put("single_rows_per_s", single.rowsPerSecond())
                .put("sharded_threads", sharded.threadsIdle())
                .put("single_threads", single.threadsIdle())
                .put("single_shards_held", single.shardsHeld())
                .put("single_leases_lost", single.leasesLost())
                .put("load_average", loadBefore.split(" ")[0]);
    }

    /** The seconds to every shard held and probed, or what stopped the wait. */
    private static Object held(ShardedRun.Figures figures) {
        return figures.shardsHeld() == figures.shards()
                ? (Object) figures.startSeconds()
                : String.format("not within %.0f", figures.startSeconds());
    }

    private static void idleKinds(Table table, String side, ShardedRun.Figures figures) {
        // one kind per statement shape, whatever table it names
        Map<String, Long> shapes = new TreeMap<>();
        figures.idleKinds()
                .forEach((kind, count) -> shapes.merge(
                        kind.replaceAll("tb_order_\\d+", "tb_order_N").trim(), count, Long::sum));
        StringBuilder kinds = new StringBuilder();
        shapes.forEach((kind, count) -> kinds.append(kinds.length() == 0 ? "" : "; ")
                .append(count)
                .append(" ")
                .append(kind));
        table.note(side + " idle statements by kind: " + (kinds.length() == 0 ? "none" : kinds));
    }

    /** One application: every database a DataSource bean ({@code ds0} primary), one task over all tables. */
    private static List<ShardedRun.App> shardedTask(OrderTables orders, int workers, List<DataSource> pools) {
        Map<String, DataSource> beans = new LinkedHashMap<>();
        Map<String, Object> properties = taskProperties(TASK, workers);
        properties.put(
                "scan.tasks." + TASK + ".tables",
                "tb_order_{0000.." + String.format("%04d", orders.tables() - 1) + "}");
        for (int d = 0; d < orders.databases(); d++) {
            beans.put("ds" + d, pools.get(d));
            properties.put("scan.tasks." + TASK + ".data-sources.ds" + d, orders.range(d));
        }
        return List.of(new ShardedRun.App(beans, List.of(TASK), orders.tables(), properties));
    }

    /** One application per database, its DataSource Shardscan's own, one task per table there. */
    private static List<ShardedRun.App> singleTableTasks(OrderTables orders, int workers, List<DataSource> pools) {
        List<ShardedRun.App> apps = new ArrayList<>();
        for (int d = 0; d < orders.databases(); d++) {
            Map<String, Object> properties = new LinkedHashMap<>();
            List<String> tasks = new ArrayList<>();
            for (int table : orders.tablesOf(d)) {
                String task = TASK + "-t" + String.format("%04d", table);
                tasks.add(task);
                properties.putAll(taskProperties(task, workers));
                properties.put("scan.tasks." + task + ".table", OrderTables.name(table));
            }
            apps.add(new ShardedRun.App(Map.of("dataSource", pools.get(d)), tasks, 1, properties));
        }
        return apps;
    }

    private static Map<String, Object> taskProperties(String task, int workers) {
        Map<String, Object> properties = new LinkedHashMap<>();
        String prefix = "scan.tasks." + task + ".";
        properties.put(prefix + "id-column", "id");
        properties.put(prefix + "shard-key-column", "shard_key");
        properties.put(prefix + "shards", 1);
        properties.put(prefix + "workers", workers);
        return properties;
    }

    /** The 1, 5 and 15 minute load averages, as {@code uptime} prints them. */
    static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
