package io.shardscan.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * What many tasks cost one node (issue 26 §4): one Spring Boot application with {@code --tasks} (default 1, 50
 * and 200, one after another) single-table tasks, each its own table {@code tb_order_NNNN} in a database of its
 * own ({@code bench_tasks_0}), {@code --shards} (8) shards and {@code --workers} (8) each, {@code @ScanTask}
 * handlers that do nothing, leases as {@code --coordinator} says: {@code jdbc} (the default: no Redis, so the
 * auto-configuration keeps them in PostgreSQL) or {@code redis}. Per count: once every shard is held and probed
 * {@code --warmup-probes} (3) times, {@code --seconds} (60) with every table empty (threads, statements per
 * second by kind, leases lost, load average), then the drain of {@code --rows} (100,000) spread over all tables
 * (rows per second, threads at peak and after, leases lost, statements per 1,000 rows).
 */
final class TasksScenario implements Scenario {

    /** The prefix of every task name, whose Redis keys and coordination rows each count clears. */
    static final String TASK = "bench-tasks";

    @Override
    public String name() {
        return "tasks";
    }

    @Override
    public ResultLine run(Bench bench, PrintStream out) throws Exception {
        int[] counts = Arrays.stream(bench.options().value("tasks", "1,50,200").split(","))
                .mapToInt(s -> Integer.parseInt(s.trim()))
                .toArray();
        int shards = bench.options().intValue("shards", 8);
        int workers = bench.options().intValue("workers", 8);
        String coordinator = bench.options().value("coordinator", "jdbc");
        if (!coordinator.equals("jdbc") && !coordinator.equals("redis")) {
            throw new IllegalArgumentException("--coordinator: jdbc or redis, not " + coordinator);
        }
        boolean redis = coordinator.equals("redis");
        LettuceConnectionFactory commands = redis ? bench.redis() : null;
        TasksRun.Settings settings = new TasksRun.Settings(
                bench.options().intValue("seconds", 60),
                bench.options().intValue("warmup-probes", 3),
                bench.options().intValue("hold-seconds", 180),
                shards,
                workers,
                bench.options().intValue("rows", 100_000),
                redis ? bench.starterRedis() : null,
                redis ? () -> commandCalls(commands) : null);
        String loadBefore = ShardedScenario.loadAverage();
        int most = Arrays.stream(counts).max().orElse(1);
        out.printf(
                "tasks: %s tasks of %d shards x %d workers on one node, %s leases; load average %s%n",
                Arrays.toString(counts), shards, workers, coordinator, loadBefore);
        OrderTables orders = OrderTables.create(bench.pgUrl(), "bench_tasks_", most, 1, shards);
        List<TasksRun.Figures> runs = new ArrayList<>();
        for (int count : counts) {
            if (redis) {
                bench.clearRedis(TASK + "*");
            }
            try (Pg pg = new Pg(orders.url(0), 1)) {
                pg.coordinationTables();
            }
            runs.add(TasksRun.measure(out, orders, settings, count));
        }
        String loadAfter = ShardedScenario.loadAverage();
        Table table = table(runs, coordinator, loadBefore, loadAfter);
        notes(table, runs, settings, coordinator);
        table.print(out);
        ResultLine result = new ResultLine(name())
                .put("coordinator", coordinator)
                .put("shards", shards)
                .put("workers", workers)
                .put("seconds", settings.seconds())
                .put("rows", settings.rows());
        for (TasksRun.Figures run : runs) {
            String key = "tasks_" + run.tasks() + "_";
            result.put(key + "idle_threads", run.idle().threads())
                    .put(key + "idle_statements_per_s", run.idle().perSecond())
                    .put(key + "idle_statements_per_s_per_task", run.idle().perSecond() / run.tasks())
                    .put(key + "idle_lease_statements_per_s", run.idle().perSecond(StatementTarget.LEASES))
                    .put(
                            key + "leases_lost",
                            run.idle().leasesLost() + run.drain().leasesLost())
                    .put(key + "rows_per_s", run.drain().rowsPerSecond())
                    .put(key + "peak_threads", run.drain().peakThreads())
                    .put(key + "drain_statements_per_1000", run.drain().statementsPer1000());
            if (redis) {
                result.put(key + "idle_redis_commands_per_s", run.idle().redisPerSecond());
            }
        }
        return result.put("load_average", loadBefore.split(" ")[0]);
    }

    private static Table table(List<TasksRun.Figures> runs, String coordinator, String before, String after) {
        String[] header = new String[runs.size() + 1];
        header[0] = "figure";
        for (int i = 0; i < runs.size(); i++) {
            header[i + 1] = runs.get(i).tasks() + (runs.get(i).tasks() == 1 ? " task" : " tasks");
        }
        Table table = new Table(
                "tasks: one node, " + coordinator + " leases, load average " + before + " before, " + after + " after",
                header);
        row(
                table,
                "logical shards (held when the idle window opened)",
                runs,
                r -> r.shards() + " (" + r.shardsHeld() + ")");
        row(table, "start to every shard held and probed (s)", runs, TasksRun.Figures::startSeconds);
        row(table, "idle: threads above the baseline", runs, r -> r.idle().threads());
        row(table, "idle: statements/s", runs, r -> r.idle().perSecond());
        row(table, "idle: statements/s per task", runs, r -> r.idle().perSecond() / r.tasks());
        row(table, "idle: statements/s on task tables (probes)", runs, r -> r.idle()
                .perSecond(StatementTarget.TASK_TABLES));
        row(table, "idle: lease statements/s (leases, members, fences)", runs, r -> r.idle()
                .perSecond(StatementTarget.LEASES));
        row(table, "idle: other statements/s (pause reads, bans)", runs, r -> r.idle()
                .perSecond(StatementTarget.OTHER));
        if (coordinator.equals("redis")) {
            row(table, "idle: Redis commands/s (whole server)", runs, r -> r.idle()
                    .redisPerSecond());
        }
        row(table, "idle: leases lost", runs, r -> r.idle().leasesLost());
        row(table, "idle: load average at the window's end", runs, r -> r.idle().load());
        row(table, "busy: rows drained", runs, r -> r.drain().handled());
        row(table, "busy: drain seconds", runs, r -> r.drain().seconds());
        row(table, "busy: rows/s", runs, r -> r.drain().rowsPerSecond());
        row(table, "busy: threads at peak", runs, r -> r.drain().peakThreads());
        row(table, "busy: threads after draining", runs, r -> r.drain().threads());
        row(table, "busy: leases lost", runs, r -> r.drain().leasesLost());
        row(table, "busy: statements/1000 rows", runs, r -> r.drain().statementsPer1000());
        return table;
    }

    private static void row(
            Table table, String figure, List<TasksRun.Figures> runs, Function<TasksRun.Figures, ?> cell) {
        Object[] cells = new Object[runs.size() + 1];
        cells[0] = figure;
        for (int i = 0; i < runs.size(); i++) {
            cells[i + 1] = cell.apply(runs.get(i));
        }
        table.row(cells);
    }

    private static void notes(
            Table table, List<TasksRun.Figures> runs, TasksRun.Settings settings, String coordinator) {
        table.note("one Spring Boot application per count, one count after the other (SpringApplication, Shardscan's"
                        + " auto-configuration, scan.tasks.bench-tasks-tNNNN.table=tb_order_NNNN, shards "
                        + settings.shards() + ", workers " + settings.workers() + ", default tiers and lease"
                        + " settings; one @ScanTask method a task, doing nothing); Shardscan's DataSource a Hikari"
                        + " pool of " + ShardedRun.POOL + " in database bench_tasks_0, its statements counted on the"
                        + " client")
                .note(
                        coordinator.equals("jdbc")
                                ? "leases: no Redis beans, so the auto-configuration keeps leases in scan_lease (JDBC),"
                                        + " wake-ups on PostgreSQL LISTEN/NOTIFY, endpoint bans in the database"
                                : "leases: Redis (coordinator, wake-ups and endpoint bans as the auto-configuration sets them"
                                        + " up with spring.data.redis), so no lease statements on PostgreSQL; Redis commands: the"
                                        + " delta of INFO commandstats calls, whole server (other clients and the two INFO included)")
                .note("idle: every table empty, after every shard was held and probed " + settings.warmupProbes()
                        + " time(s); a window of " + settings.seconds() + " s; threads: the JVM's live threads above"
                        + " those before the application started (the bench's pools open before); statements told"
                        + " apart by their first 60 characters: naming a task's table, naming scan_lease, scan_member"
                        + " or scan_fence (or the coordinator's tagged union reads), or else")
                .note(
                        "leases lost: the sum over tasks of stats().leasesLost(), in the idle window and during the drain (target 0)")
                .note("busy: " + String.format(Locale.ROOT, "%,d", settings.rows()) + " rows spread over all the"
                        + " count's tables (one INSERT each, on a pool of its own), timed from the first insert to"
                        + " the last handler; threads sampled every " + TasksRun.THREAD_SAMPLE.toMillis() + " ms");
        for (TasksRun.Figures run : runs) {
            table.note(run.tasks() + " task(s), idle statements by kind: "
                    + kinds(run.idle().kinds()));
            table.note(run.tasks() + " task(s), threads by name (digits taken out), idle: "
                    + byCount(run.idle().threadNames()));
            table.note(run.tasks() + " task(s), threads by name (digits taken out), after draining: "
                    + byCount(run.drain().threadNames()));
        }
    }

    /** Most first. */
    private static String byCount(Map<String, Long> counts) {
        return counts.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .map(e -> e.getValue() + " " + e.getKey())
                .collect(Collectors.joining("; "));
    }

    /** The counts by statement shape, whatever table it names. */
    private static String kinds(Map<String, Long> kinds) {
        Map<String, Long> shapes = new TreeMap<>();
        kinds.forEach((kind, count) -> shapes.merge(
                kind.replaceAll(StatementTarget.TABLE_PREFIX + "\\d+", StatementTarget.TABLE_PREFIX + "N")
                        .trim(),
                count,
                Long::sum));
        return shapes.isEmpty()
                ? "none"
                : shapes.entrySet().stream()
                        .map(e -> e.getValue() + " " + e.getKey())
                        .collect(Collectors.joining("; "));
    }

    /** Commands the Redis server ran so far, all kinds: the sum of INFO commandstats' calls. */
    private static long commandCalls(LettuceConnectionFactory redis) {
        try (RedisConnection connection = redis.getConnection()) {
            Properties stats = connection.serverCommands().info("commandstats");
            long calls = 0;
            for (String name : stats.stringPropertyNames()) {
                String value = stats.getProperty(name);
                int at = value.indexOf("calls=");
                if (name.startsWith("cmdstat_") && at >= 0) {
                    int end = value.indexOf(',', at);
                    calls += Long.parseLong(value.substring(at + 6, end < 0 ? value.length() : end));
                }
            }
            return calls;
        }
    }
}
