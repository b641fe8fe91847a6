package io.shardscan.bench;

import io.shardscan.core.ScanEngine;
import io.shardscan.core.TaskView;
import io.shardscan.testsupport.CountingDataSource;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One task count of the tasks scenario: one Spring Boot application with that many single-table tasks on the
 * first tables of {@link OrderTables}, Shardscan's DataSource counted ({@link CountingDataSource}); once every
 * shard is held and probed, an idle window with every table empty, then a drain of rows spread over all tables.
 * The application is closed at the end.
 */
final class TasksRun {

    /** How often the drain samples the JVM's live threads for its peak. */
    static final Duration THREAD_SAMPLE = Duration.ofMillis(100);

    /** What a run measures with; {@code redis} is null for JDBC leases. */
    record Settings(
            int seconds,
            int warmupProbes,
            int holdSeconds,
            int shards,
            int workers,
            int rows,
            @Nullable LettuceConnectionFactory redis,
            @Nullable LongSupplier redisCommands) {}

    /** What one task count measured. */
    record Figures(
            int tasks, int shards, String coordinator, int shardsHeld, double startSeconds, Idle idle, Drain drain) {}

    /**
     * The idle window: its seconds, statements by kind, Redis commands ({@code -1} with JDBC leases), leases lost,
     * the load average at its end, and the threads above the baseline at its end, in all and by name.
     */
    record Idle(
            double seconds,
            Map<String, Long> kinds,
            long redisCommands,
            long leasesLost,
            String load,
            int threads,
            Map<String, Long> threadNames) {

        double perSecond() {
            return kinds.values().stream().mapToLong(Long::longValue).sum() / seconds;
        }

        /** Statements per second on {@code on}'s tables. */
        double perSecond(StatementTarget on) {
            return kinds.entrySet().stream()
                            .filter(e -> StatementTarget.of(e.getKey()) == on)
                            .mapToLong(Map.Entry::getValue)
                            .sum()
                    / seconds;
        }

        double redisPerSecond() {
            return redisCommands < 0 ? Double.NaN : redisCommands / seconds;
        }
    }

    /**
     * The drain: rows inserted and handled, its seconds and statements, threads at peak and after (in all and by
     * name), leases lost.
     */
    record Drain(
            long rows,
            long handled,
            double seconds,
            long statements,
            int peakThreads,
            int threads,
            Map<String, Long> threadNames,
            long leasesLost) {

        double rowsPerSecond() {
            return handled / seconds;
        }

        double statementsPer1000() {
            return handled == 0 ? 0 : statements * 1000.0 / handled;
        }
    }

    /** The running node: its engine and tasks, its counted DataSource, the JVM's threads before it started. */
    private record Node(ScanEngine engine, List<String> tasks, CountingDataSource counted, int baseline) {

        long leasesLost() {
            return tasks.stream()
                    .mapToLong(task -> engine.task(task).stats().leasesLost())
                    .sum();
        }

        int threads() {
            return ManagementFactory.getThreadMXBean().getThreadCount() - baseline;
        }
    }

    private TasksRun() {}

    /** Runs {@code tasks} tasks on the first as many tables of {@code orders}. */
    static Figures measure(PrintStream out, OrderTables orders, Settings settings, int tasks) throws Exception {
        LongAdder drained = new LongAdder();
        List<String> names = new ArrayList<>();
        Map<String, Object> properties = new LinkedHashMap<>();
        for (int t = 0; t < tasks; t++) {
            String task = TasksScenario.TASK + "-t" + String.format("%04d", t);
            names.add(task);
            String prefix = "scan.tasks." + task + ".";
            properties.put(prefix + "table", OrderTables.name(t));
            properties.put(prefix + "id-column", "id");
            properties.put(prefix + "shard-key-column", "shard_key");
            properties.put(prefix + "shards", settings.shards());
            properties.put(prefix + "workers", settings.workers());
        }
        try (Pg pool = new Pg(orders.url(0), ShardedRun.POOL);
                Pg inserter = new Pg(orders.url(0), 1)) {
            CountingDataSource counted = new CountingDataSource(pool.dataSource());
            // after the bench's own pools opened, so that their threads are not counted
            int baseline = ManagementFactory.getThreadMXBean().getThreadCount();
            Map<String, Long> namesBefore = threadNames();
            long start = System.nanoTime();
            try (ScanApplication app = ScanApplication.start(
                    Map.of("dataSource", counted.dataSource()),
                    OrderHandlers.forTasks(names, new Pickups(), drained),
                    properties,
                    settings.redis())) {
                Node node = new Node(app.engine(), names, counted, baseline);
                boolean warm = Await.within(
                        Duration.ofSeconds(settings.holdSeconds()),
                        Duration.ofMillis(200),
                        () -> names.stream().map(node.engine()::task).allMatch(view -> warm(view, settings)));
                double startSeconds = (System.nanoTime() - start) / 1e9;
                int held = names.stream()
                        .mapToInt(task -> node.engine().task(task).ownedShards().size())
                        .sum();
                out.printf(
                        "  %d task(s), %s leases: %d of %d shards held after %.1f s%s; idle for %d s%n",
                        tasks,
                        app.coordinator(),
                        held,
                        tasks * settings.shards(),
                        startSeconds,
                        warm ? "" : " (not every shard held and probed within --hold-seconds; measured as it stands)",
                        settings.seconds());
                Idle idle = idle(node, settings, namesBefore);
                Drain drain = drain(node, settings, orders, inserter, drained, namesBefore);
                out.printf(
                        "  %d task(s): %,d of %,d rows drained in %.2f s, %d threads at peak%n",
                        tasks, drain.handled(), drain.rows(), drain.seconds(), drain.peakThreads());
                return new Figures(
                        tasks, tasks * settings.shards(), app.coordinator(), held, startSeconds, idle, drain);
            }
        } finally {
            orders.truncate(IntStream.range(0, tasks).boxed().toList());
        }
    }

    private static boolean warm(TaskView view, Settings settings) {
        return view.ownedShards().size() >= settings.shards() && view.stats().probes() >= settings.warmupProbes();
    }

    private static Idle idle(Node node, Settings settings, Map<String, Long> namesBefore) throws InterruptedException {
        long lostBefore = node.leasesLost();
        Map<String, Long> kindsBefore = node.counted().byKind();
        long redisBefore = redisCommands(settings);
        long start = System.nanoTime();
        Thread.sleep(settings.seconds() * 1000L);
        Map<String, Long> kinds = subtract(node.counted().byKind(), kindsBefore);
        long redis = redisCommands(settings);
        double seconds = (System.nanoTime() - start) / 1e9;
        return new Idle(
                seconds,
                kinds,
                redis < 0 ? -1 : redis - redisBefore,
                node.leasesLost() - lostBefore,
                ShardedScenario.loadAverage(),
                node.threads(),
                subtract(threadNames(), namesBefore));
    }

    /** Inserts the rows, as evenly as they divide, into every task's table (one statement each) and waits for them. */
    private static Drain drain(
            Node node,
            Settings settings,
            OrderTables orders,
            Pg inserter,
            LongAdder drained,
            Map<String, Long> namesBefore)
            throws Exception {
        long statementsBefore = node.counted().total();
        long lostBefore = node.leasesLost();
        int tasks = node.tasks().size();
        int rows = settings.rows();
        long start = System.nanoTime();
        for (int t = 0; t < tasks; t++) {
            long count = rows / tasks + (t < rows % tasks ? 1 : 0);
            if (count > 0) {
                orders.insert(inserter, t, 1, count);
            }
        }
        int[] peak = {node.threads()};
        Await.within(ShardedRun.DRAIN_TIMEOUT, THREAD_SAMPLE, () -> {
            peak[0] = Math.max(peak[0], node.threads());
            return drained.sum() >= rows;
        });
        double seconds = (System.nanoTime() - start) / 1e9;
        int after = node.threads();
        return new Drain(
                rows,
                Math.min(drained.sum(), rows),
                seconds,
                node.counted().total() - statementsBefore,
                Math.max(peak[0], after),
                after,
                subtract(threadNames(), namesBefore),
                node.leasesLost() - lostBefore);
    }

    private static long redisCommands(Settings settings) {
        return settings.redisCommands() == null ? -1 : settings.redisCommands().getAsLong();
    }

    /** The JVM's live threads by name with the digits taken out ({@code scan-x-t-round-} for all tasks' rounds). */
    static Map<String, Long> threadNames() {
        Map<String, Long> names = new TreeMap<>();
        Thread.getAllStackTraces()
                .keySet()
                .forEach(thread -> names.merge(thread.getName().replaceAll("\\d", ""), 1L, Long::sum));
        return names;
    }

    /** The counts that grew, by how much. */
    static Map<String, Long> subtract(Map<String, Long> after, Map<String, Long> before) {
        Map<String, Long> delta = new TreeMap<>();
        after.forEach((key, count) -> {
            long grown = count - before.getOrDefault(key, 0L);
            if (grown > 0) {
                delta.put(key, grown);
            }
        });
        return delta;
    }
}
