package io.shardscan.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanTasks;
import io.shardscan.redis.RedisWakeChannel;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * Pickup latency: rows inserted at a steady rate ({@code --rate}, default 200/s) for {@code --seconds}
 * (default 60) while {@code --nodes} (default 2) run; the time from each insert's commit to its
 * handler's start, p50/p99/max, for Shardscan polling alone (tier 0 every 3 s, the default), Shardscan
 * with the inserter calling {@link ScanTasks#wake} after each commit (through Redis to the owner), and
 * db-scheduler at its defaults (each row scheduled for "now", polled every 10 s). One after another
 * on the same PostgreSQL; the inserter and the nodes share this JVM, so both times come from one clock.
 */
final class LatencyScenario implements Scenario {

    /** The default tier 0 interval every Shardscan run here keeps. */
    static final Duration TIER0 = Duration.ofSeconds(3);

    @Override
    public String name() {
        return "latency";
    }

    @Override
    public ResultLine run(Bench bench, PrintStream out) throws Exception {
        int rate = bench.options().intValue("rate", 200);
        int seconds = bench.options().intValue("seconds", 60);
        int nodes = bench.options().intValue("nodes", 2);
        int workers = bench.options().intValue("workers", 8);
        int rows = rate * seconds;
        out.printf("latency: %,d rows at %d/s for %d s, %d nodes%n", rows, rate, seconds, nodes);
        Pickups.Latencies polling = shardscan(bench, out, nodes, workers, rate, rows, false);
        Pickups.Latencies woken = shardscan(bench, out, nodes, workers, rate, rows, true);
        Pickups.Latencies skipLocked = skipLocked(bench, out, nodes, workers, rate, rows);
        Pickups.Latencies dbScheduler = dbScheduler(bench, out, nodes, rate, rows);
        try (Pg pg = bench.pg(1)) {
            pg.jdbc().execute("DROP TABLE IF EXISTS " + Pg.TABLE);
        }
        Table table = new Table(
                "latency: insert commit to handler start, " + rate + " rows/s for " + seconds + " s",
                "system",
                "rows",
                "p50 ms",
                "p99 ms",
                "max ms");
        row(table, "Shardscan, polling only (" + nodes + " nodes, tier 0 every " + TIER0.toSeconds() + " s)", polling);
        row(table, "Shardscan, ScanTasks.wake after each commit (Redis pub/sub)", woken);
        row(
                table,
                "SKIP LOCKED poller (" + nodes + " pools x " + workers + " threads, each polls every "
                        + POLLER_IDLE.toSeconds() + " s when it finds nothing; no order, no fence)",
                skipLocked);
        row(table, "db-scheduler defaults (" + nodes + " instances, scheduled for now, polls every 10 s)", dbScheduler);
        table.note("targets: with wake-ups p99 <= 100 ms; polling only p99 <= tier 0 interval + 0.5 s = "
                        + (TIER0.toMillis() + 500) + " ms")
                .note("Shardscan's nodes are ScanEngines in this JVM with Redis leases; the handler is a @ScanTask"
                        + " method taking a record, found by ScanTaskRegistry; the inserter commits each row alone")
                .print(out);
        return new ResultLine(name())
                .put("rows", rows)
                .put("rate", rate)
                .put("nodes", nodes)
                .put("tier0_ms", TIER0.toMillis())
                .put("polling_p50_ms", polling.percentile(50))
                .put("polling_p99_ms", polling.percentile(99))
                .put("polling_max_ms", polling.max())
                .put("wake_p50_ms", woken.percentile(50))
                .put("wake_p99_ms", woken.percentile(99))
                .put("wake_max_ms", woken.max())
                .put("skiplocked_p50_ms", skipLocked.percentile(50))
                .put("skiplocked_p99_ms", skipLocked.percentile(99))
                .put("skiplocked_max_ms", skipLocked.max())
                .put("dbscheduler_p50_ms", dbScheduler.percentile(50))
                .put("dbscheduler_p99_ms", dbScheduler.percentile(99))
                .put("dbscheduler_max_ms", dbScheduler.max());
    }

    private static void row(Table table, String system, Pickups.Latencies latencies) {
        table.row(system, latencies.count(), latencies.percentile(50), latencies.percentile(99), latencies.max());
    }

    private static Pickups.Latencies shardscan(
            Bench bench, PrintStream out, int nodes, int workers, int rate, int rows, boolean wake) throws Exception {
        Pickups pickups = new Pickups();
        ScanEngine.ScanTask task = new LatencyJobs(pickups).task(workers);
        try (Pg pg = bench.pg(2)) {
            pg.recreateTaskTable(0, 1);
            bench.clearRedis(LatencyJobs.TASK);
            List<ScanEngine> engines = new ArrayList<>();
            for (int i = 0; i < nodes; i++) {
                ScanEngine engine = bench.engine(
                        LatencyJobs.TASK + "-node-" + i,
                        task.definition(),
                        task.handler(),
                        bench.pg(workers + 2).dataSource());
                engines.add(wake ? engine.wakeThrough(new RedisWakeChannel(bench.redis())) : engine);
            }
            engines.forEach(ScanEngine::start);
            try {
                Await.until(
                        "the nodes to hold every shard",
                        Duration.ofMinutes(2),
                        Duration.ofMillis(50),
                        () -> engines.stream()
                                        .mapToInt(e -> e.task(LatencyJobs.TASK)
                                                .ownedShards()
                                                .size())
                                        .sum()
                                == Pg.SHARDS);
                ScanTasks tasks = new ScanTasks(engines.get(0));
                insert(pg, rate, rows, pickups, (id, key) -> {
                    if (wake) {
                        tasks.wake(LatencyJobs.TASK, key);
                    }
                });
                awaitStarted(pickups, rows);
            } finally {
                engines.parallelStream().forEach(ScanEngine::stop);
            }
        }
        out.printf("  shardscan %s: done%n", wake ? "with wake-ups" : "polling only");
        return pickups.latencies();
    }

    /** Inserts {@code rows} rows, each committed alone, one every 1/rate s; tells {@code committed} after each. */
    private static void insert(Pg pg, int rate, int rows, Pickups pickups, Committed committed) throws Exception {
        long every = 1_000_000_000L / rate;
        long start = System.nanoTime();
        try (Connection connection = pg.dataSource().getConnection();
                PreparedStatement insert = connection.prepareStatement(
                        "INSERT INTO " + Pg.TABLE + " (id, shard_key, updated_at) VALUES (?, ?, LOCALTIMESTAMP)")) {
            connection.setAutoCommit(true);
            for (long id = 1; id <= rows; id++) {
                LockSupport.parkNanos(start + (id - 1) * every - System.nanoTime());
                long key = id % 1000;
                insert.setLong(1, id);
                insert.setLong(2, key);
                insert.executeUpdate();
                pickups.committed(id);
                committed.accept(id, key);
            }
        }
    }

    /** How long a poller thread that found nothing waits: a service's {@code @Scheduled(fixedDelay = 1000)}. */
    static final Duration POLLER_IDLE = Duration.ofSeconds(1);

    private static Pickups.Latencies skipLocked(
            Bench bench, PrintStream out, int nodes, int threads, int rate, int rows) throws Exception {
        Pickups pickups = new Pickups();
        AtomicBoolean running = new AtomicBoolean(true);
        ExecutorService executor = Executors.newFixedThreadPool(nodes * threads);
        try (Pg pg = bench.pg(2)) {
            pg.recreateTaskTable(0, 1);
            SkipLockedRun.createIndex(pg);
            List<Future<?>> pollers = new ArrayList<>();
            AtomicLong done = new AtomicLong();
            for (int n = 0; n < nodes; n++) {
                DataSource pool = bench.pg(threads).dataSource();
                for (int t = 0; t < threads; t++) {
                    pollers.add(executor.submit(() -> {
                        SkipLockedRun.poll(pool, pickups::started, done, POLLER_IDLE, running::get);
                        return null;
                    }));
                }
            }
            try {
                insert(pg, rate, rows, pickups, (id, key) -> {});
                awaitStarted(pickups, rows);
            } finally {
                running.set(false);
                for (Future<?> poller : pollers) {
                    poller.get();
                }
            }
        } finally {
            executor.shutdownNow();
        }
        out.println("  SKIP LOCKED poller: done");
        return pickups.latencies();
    }

    private static Pickups.Latencies dbScheduler(Bench bench, PrintStream out, int instances, int rate, int rows)
            throws Exception {
        Pickups pickups = new Pickups();
        OneTimeTask<Void> task = Tasks.oneTime("bench-latency")
                .execute((instance, context) -> pickups.started(Long.parseLong(instance.getId())));
        try (Pg pg = bench.pg(2)) {
            DbSchedulerRun.createTable(pg);
            List<Scheduler> schedulers = new ArrayList<>();
            for (int i = 0; i < instances; i++) {
                schedulers.add(Scheduler.create(bench.pg(12).dataSource(), task)
                        .tableName(DbSchedulerRun.TABLE)
                        .schedulerName(new SchedulerName.Fixed("bench-latency-" + i))
                        .build());
            }
            schedulers.forEach(Scheduler::start);
            try {
                long every = 1_000_000_000L / rate;
                long start = System.nanoTime();
                for (long id = 1; id <= rows; id++) {
                    LockSupport.parkNanos(start + (id - 1) * every - System.nanoTime());
                    schedulers.get(0).schedule(task.instance(Long.toString(id)), Instant.now());
                    pickups.committed(id);
                }
                awaitStarted(pickups, rows);
            } finally {
                schedulers.parallelStream().forEach(Scheduler::stop);
                pg.jdbc().execute("DROP TABLE IF EXISTS " + DbSchedulerRun.TABLE);
            }
        }
        out.println("  db-scheduler: done");
        return pickups.latencies();
    }

    private static void awaitStarted(Pickups pickups, int rows) throws Exception {
        Await.until(
                "every row's handler to start",
                Duration.ofMinutes(5),
                Duration.ofMillis(20),
                () -> pickups.startedCount() >= rows);
    }

    /** Told after each insert committed. */
    @FunctionalInterface
    private interface Committed {
        void accept(long id, long key);
    }
}
