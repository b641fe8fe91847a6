package io.shardscan.bench;

import io.shardscan.core.ScanEngine;
import io.shardscan.core.TaskView;
import io.shardscan.testsupport.CountingDataSource;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * One side of the sharded scenario: its Spring Boot applications started on the order tables, each
 * database's pool counted ({@link CountingDataSource}); then, in turn, the statements per second of each
 * database while every table is empty, the pickups of single rows inserted into busy tables while idle, and
 * the time to drain rows spread over the busy tables. The applications are closed at the end.
 */
final class ShardedRun {

    /** Connections of each database's pool: Hikari's default, as an application that does not set it. */
    static final int POOL = 10;

    /** The default tier 0 interval: an idle shard is probed this often, so pickups start at random within it. */
    static final Duration TIER0 = Duration.ofSeconds(3);

    /** How long a pickup may take before it counts as missed. */
    static final Duration PICKUP_TIMEOUT = Duration.ofSeconds(30);

    /** How long the drain may take before its rate is taken from the rows handled so far. */
    static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(5);

    /** What a side measures with. */
    record Settings(
            int seconds, int warmupProbes, int holdSeconds, int pickups, List<Integer> busy, int rows, int workers) {}

    /** One application of a side: its DataSource beans (the first primary), tasks and properties. */
    record App(
            Map<String, DataSource> dataSources,
            List<String> tasks,
            int shardsPerTask,
            Map<String, Object> properties) {}

    /** What one side measured. */
    record Figures(
            int applications,
            int tasks,
            int shards,
            int shardsHeld,
            double startSeconds,
            long leasesLost,
            String idleLoad,
            int threadsIdle,
            int threadsDrained,
            double[] idlePerSecond,
            Map<String, Long> idleKinds,
            Pickups.Latencies pickups,
            int pickupsMissed,
            long rows,
            long rowsHandled,
            double drainSeconds,
            long drainStatements) {

        double idleTotal() {
            double sum = 0;
            for (double each : idlePerSecond) {
                sum += each;
            }
            return sum;
        }

        double rowsPerSecond() {
            return rowsHandled / drainSeconds;
        }

        double drainStatementsPer1000() {
            return rowsHandled == 0 ? 0 : drainStatements * 1000.0 / rowsHandled;
        }
    }

    private ShardedRun() {}

    /**
     * Runs one side.
     *
     * @param apps the side's applications, given each database's counted DataSource
     */
    static Figures measure(
            Bench bench,
            PrintStream out,
            OrderTables orders,
            Settings settings,
            String label,
            Function<List<DataSource>, List<App>> apps)
            throws Exception {
        bench.clearRedis(ShardedScenario.TASK + "*");
        List<Pg> pools = new ArrayList<>();
        List<CountingDataSource> counted = new ArrayList<>();
        List<ScanApplication> running = new ArrayList<>();
        // the inserts' own pools, uncounted and open before any clock starts
        List<Pg> inserters = new ArrayList<>();
        Pickups pickups = new Pickups();
        LongAdder drained = new LongAdder();
        int baseline = ManagementFactory.getThreadMXBean().getThreadCount();
        try {
            for (int d = 0; d < orders.databases(); d++) {
                Pg pool = new Pg(orders.url(d), POOL);
                pools.add(pool);
                counted.add(new CountingDataSource(pool.dataSource()));
                inserters.add(new Pg(orders.url(d), 1));
            }
            List<App> specs = apps.apply(
                    counted.stream().map(CountingDataSource::dataSource).toList());
            long start = System.nanoTime();
            for (App app : specs) {
                running.add(ScanApplication.start(
                        app.dataSources(),
                        OrderHandlers.forTasks(app.tasks(), pickups, drained),
                        app.properties(),
                        bench.starterRedis()));
            }
            boolean warm = Await.within(
                    Duration.ofSeconds(settings.holdSeconds()),
                    Duration.ofMillis(200),
                    () -> warm(running, specs, settings.warmupProbes()));
            double startSeconds = (System.nanoTime() - start) / 1e9;
            int held = held(running, specs);
            int threadsIdle = ManagementFactory.getThreadMXBean().getThreadCount() - baseline;
            int tasks = specs.stream().mapToInt(app -> app.tasks().size()).sum();
            int shards = specs.stream()
                    .mapToInt(app -> app.tasks().size() * app.shardsPerTask())
                    .sum();
            out.printf(
                    "  %s: %d application(s), %d task(s), %d of %d shards held after %.1f s%s, %d threads; idle for %d"
                            + " s%n",
                    label,
                    specs.size(),
                    tasks,
                    held,
                    shards,
                    startSeconds,
                    warm ? "" : " (not every shard held and probed within --hold-seconds; measured as it stands)",
                    threadsIdle,
                    settings.seconds());
            long lostBefore = leasesLost(running, specs);

            long[] before = totals(counted);
            Map<String, Long> kindsBefore = kinds(counted);
            long windowStart = System.nanoTime();
            Thread.sleep(settings.seconds() * 1000L);
            long[] after = totals(counted);
            double window = (System.nanoTime() - windowStart) / 1e9;
            String idleLoad = ShardedScenario.loadAverage();
            long lost = leasesLost(running, specs) - lostBefore;
            double[] idle = new double[after.length];
            for (int d = 0; d < idle.length; d++) {
                idle[d] = (after[d] - before[d]) / window;
            }
            Map<String, Long> idleKinds = TasksRun.subtract(kinds(counted), kindsBefore);

            int missed = pickUp(orders, settings, pickups, inserters);
            out.printf(
                    "  %s: %d pickups, %d not started within " + PICKUP_TIMEOUT.toSeconds() + " s%n",
                    label,
                    settings.pickups(),
                    missed);

            long statementsBefore = sum(totals(counted));
            long drainStart = System.nanoTime();
            insertSpread(orders, settings, inserters);
            Await.within(DRAIN_TIMEOUT, Duration.ofMillis(20), () -> drained.sum() >= settings.rows());
            double drainSeconds = (System.nanoTime() - drainStart) / 1e9;
            long handled = Math.min(drained.sum(), settings.rows());
            long drainStatements = sum(totals(counted)) - statementsBefore;
            int threadsDrained = ManagementFactory.getThreadMXBean().getThreadCount() - baseline;
            out.printf("  %s: %,d of %,d rows drained in %.2f s%n", label, handled, settings.rows(), drainSeconds);
            return new Figures(
                    specs.size(),
                    tasks,
                    shards,
                    held,
                    startSeconds,
                    lost,
                    idleLoad,
                    threadsIdle,
                    threadsDrained,
                    idle,
                    idleKinds,
                    pickups.latencies(),
                    missed,
                    settings.rows(),
                    handled,
                    drainSeconds,
                    drainStatements);
        } finally {
            running.parallelStream().forEach(ScanApplication::close);
            pools.forEach(Pg::close);
            inserters.forEach(Pg::close);
        }
    }

    private static int held(List<ScanApplication> running, List<App> specs) {
        int held = 0;
        for (int i = 0; i < running.size(); i++) {
            for (String task : specs.get(i).tasks()) {
                held += running.get(i).engine().task(task).ownedShards().size();
            }
        }
        return held;
    }

    private static long leasesLost(List<ScanApplication> running, List<App> specs) {
        long lost = 0;
        for (int i = 0; i < running.size(); i++) {
            for (String task : specs.get(i).tasks()) {
                lost += running.get(i).engine().task(task).stats().leasesLost();
            }
        }
        return lost;
    }

    private static boolean warm(List<ScanApplication> running, List<App> specs, int probes) {
        for (int i = 0; i < running.size(); i++) {
            ScanEngine engine = running.get(i).engine();
            App app = specs.get(i);
            for (String task : app.tasks()) {
                TaskView view = engine.task(task);
                if (view.ownedShards().size() < app.shardsPerTask()
                        || view.stats().probes() < probes) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Inserts one row at a time into the busy tables in turn, each after a random pause within the tier 0
     * interval (so that the inserts fall anywhere in the probes' cycle), and waits for its handler.
     */
    private static int pickUp(OrderTables orders, Settings settings, Pickups pickups, List<Pg> inserters)
            throws Exception {
        int missed = 0;
        for (int i = 0; i < settings.pickups(); i++) {
            Thread.sleep(ThreadLocalRandom.current().nextLong(TIER0.toMillis()));
            int table = settings.busy().get(i % settings.busy().size());
            long id = OrderHandlers.PICKUP_IDS + i;
            orders.insert(inserters.get(orders.databaseOf(table)), table, id, 1);
            pickups.committed(id);
            int picked = i + 1 - missed;
            if (!Await.within(PICKUP_TIMEOUT, Duration.ofMillis(1), () -> pickups.startedCount() >= picked)) {
                missed++;
            }
        }
        return missed;
    }

    /** Inserts the drained rows, as evenly as they divide, into the busy tables: one statement per table. */
    private static void insertSpread(OrderTables orders, Settings settings, List<Pg> inserters) {
        List<Integer> busy = settings.busy();
        for (int i = 0; i < busy.size(); i++) {
            int table = busy.get(i);
            long count = settings.rows() / busy.size() + (i < settings.rows() % busy.size() ? 1 : 0);
            if (count > 0) {
                orders.insert(inserters.get(orders.databaseOf(table)), table, 1, count);
            }
        }
    }

    private static long[] totals(List<CountingDataSource> counted) {
        return counted.stream().mapToLong(CountingDataSource::total).toArray();
    }

    private static long sum(long[] values) {
        long sum = 0;
        for (long value : values) {
            sum += value;
        }
        return sum;
    }

    /** Statements of every pool so far, by their first words. */
    private static Map<String, Long> kinds(List<CountingDataSource> counted) {
        Map<String, Long> kinds = new TreeMap<>();
        counted.forEach(source -> source.byKind().forEach((kind, count) -> kinds.merge(kind, count, Long::sum)));
        return kinds;
    }
}
