package io.shardscan.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import io.shardscan.actuate.ScanBacklogs;
import io.shardscan.core.ScanEngine;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.testsupport.CountingDataSource;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What a system with nothing to do costs the database: statements per second over a window
 * ({@code --seconds}, default 60) with every row done, in a database of its own ({@code bench_idle})
 * so that the server's transaction count ({@code pg_stat_database}) holds only the system's. Shardscan
 * (the {@code @ScanTask} of {@link ScanTaskJobs}, 64 shards, the default tiers 3 s / 30 s / 60 s,
 * lease TTL and renew interval, and the endpoint's backlog counter every 10 s) on 1 and 3 nodes, with
 * Redis leases and with JDBC leases, vs db-scheduler at its defaults on 1 and 3 instances. Statements
 * are counted on the client side, each system's pool wrapped ({@link CountingDataSource}); the
 * server's count adds the pools' connection checks.
 */
final class IdleScenario implements Scenario {

    /** The database the scenario creates and measures, apart from every other. */
    static final String DATABASE = "bench_idle";

    @Override
    public String name() {
        return "idle";
    }

    @Override
    public ResultLine run(Bench bench, PrintStream out) throws Exception {
        int seconds = bench.options().intValue("seconds", 60);
        int warmup = bench.options().intValue("warmup-probes", 5);
        int rows = bench.options().intValue("rows", 100_000);
        String url = Pg.database(bench.pgUrl(), DATABASE);
        try (Pg pg = new Pg(url, 2)) {
            pg.recreateTaskTable(rows, Math.max(1, rows / 4));
            pg.jdbc().update("UPDATE " + Pg.TABLE + " SET status = 1");
            pg.execute("VACUUM ANALYZE " + Pg.TABLE);
            DbSchedulerRun.createTable(pg);
        }
        out.printf("idle: %,d rows, all done; a window of %d s per system%n", rows, seconds);
        List<Measure> measures = new ArrayList<>();
        for (boolean jdbcLeases : new boolean[] {false, true}) {
            for (int nodes : new int[] {1, 3}) {
                measures.add(shardscan(bench, url, out, nodes, jdbcLeases, seconds, warmup));
            }
        }
        int dbSchedulerWarmup = bench.options().intValue("dbscheduler-warmup-seconds", 5);
        for (int instances : new int[] {1, 3}) {
            measures.add(dbScheduler(bench, url, out, instances, seconds, dbSchedulerWarmup));
        }
        Table table = new Table(
                "idle: statements per second against PostgreSQL with every row done",
                "system",
                "nodes",
                "leases",
                "store statements",
                "lease statements",
                "statements/s",
                "per node",
                "server xacts/s");
        for (Measure m : measures) {
            table.row(
                    m.system,
                    m.nodes,
                    m.leases,
                    m.storeStatements,
                    m.leaseStatements,
                    m.perSecond(),
                    m.perSecond() / m.nodes,
                    m.serverPerSecond());
        }
        table.note("one task of 64 shards; per node = per node per task; Shardscan's figures include its backlog"
                        + " counter (scan.backlog-refresh 10 s) and, with JDBC leases, the lease statements")
                .note("statements are counted on the client side over " + seconds + " s after a warm-up (all shards"
                        + " held, " + warmup
                        + " idle probes); server xacts are pg_stat_database's xact_commit + xact_rollback"
                        + " of database " + DATABASE + ", which add the pools' connection checks")
                .note("db-scheduler: Scheduler.create(dataSource, task) with its defaults (polling every 10 s)")
                .print(out);
        Measure one = measures.get(0);
        Measure three = measures.get(1);
        return new ResultLine(name())
                .put("seconds", seconds)
                .put("shards", Pg.SHARDS)
                .put("shardscan_statements_per_s", one.perSecond())
                .put("shardscan_3_nodes_statements_per_s", three.perSecond())
                .put("shardscan_statements_per_s_per_node", three.perSecond() / 3)
                .put("shardscan_jdbc_leases_statements_per_s", measures.get(2).perSecond())
                .put(
                        "shardscan_jdbc_leases_3_nodes_statements_per_s",
                        measures.get(3).perSecond())
                .put("shardscan_server_xacts_per_s", one.serverPerSecond())
                .put("dbscheduler_statements_per_s", measures.get(4).perSecond())
                .put("dbscheduler_3_instances_statements_per_s", measures.get(5).perSecond());
    }

    private static Measure shardscan(
            Bench bench, String url, PrintStream out, int nodes, boolean jdbcLeases, int seconds, int warmup)
            throws Exception {
        ScanTaskJobs jobs = new ScanTaskJobs();
        ScanEngine.ScanTask task = jobs.task(4);
        String name = task.definition().name();
        bench.clearRedis(name);
        try (Pg setup = new Pg(url, 1)) {
            setup.coordinationTables();
        }
        List<Pg> pools = new ArrayList<>();
        List<CountingDataSource> stores = new ArrayList<>();
        List<CountingDataSource> leases = new ArrayList<>();
        List<ScanEngine> engines = new ArrayList<>();
        List<ScanBacklogs> backlogs = new ArrayList<>();
        try {
            for (int i = 0; i < nodes; i++) {
                Pg store = new Pg(url, 4);
                pools.add(store);
                stores.add(new CountingDataSource(store.dataSource()));
                String node = name + "-idle-" + i;
                if (jdbcLeases) {
                    Pg lease = new Pg(url, 2);
                    pools.add(lease);
                    leases.add(new CountingDataSource(lease.dataSource()));
                    engines.add(Bench.engine(
                            node,
                            task.definition(),
                            task.handler(),
                            stores.get(i).dataSource(),
                            new JdbcShardCoordinator(leases.get(i).dataSource())));
                } else {
                    engines.add(bench.engine(
                            node,
                            task.definition(),
                            task.handler(),
                            stores.get(i).dataSource()));
                }
            }
            for (ScanEngine engine : engines) {
                engine.start();
                ScanBacklogs counter = new ScanBacklogs(engine, Duration.ofSeconds(10));
                counter.start();
                backlogs.add(counter);
            }
            Await.until(
                    "every shard held and probed idle five times",
                    Duration.ofMinutes(3),
                    Duration.ofMillis(200),
                    () -> engines.stream()
                                            .mapToInt(e ->
                                                    e.task(name).ownedShards().size())
                                            .sum()
                                    == Pg.SHARDS
                            && engines.stream()
                                    .allMatch(e -> e.task(name).stats().probes() >= warmup));
            XactWindow window = XactWindow.open(url, DATABASE);
            long storeBefore = total(stores);
            long leaseBefore = total(leases);
            java.util.Map<String, Long> kindsBefore = kinds(stores, leases);
            Thread.sleep(seconds * 1000L);
            long store = total(stores) - storeBefore;
            long lease = total(leases) - leaseBefore;
            double elapsed = window.seconds();
            long xacts = window.close();
            String leaseKind = jdbcLeases ? "JDBC" : "Redis";
            out.printf(
                    "  shardscan %d node(s), %s leases: %d store + %d lease statements in %.1f s%n",
                    nodes, leaseKind, store, lease, elapsed);
            java.util.Map<String, Long> kinds = kinds(stores, leases);
            kinds.forEach((kind, count) -> {
                long delta = count - kindsBefore.getOrDefault(kind, 0L);
                if (delta > 0) {
                    out.printf("    %5d  %s%n", delta, kind);
                }
            });
            return new Measure("Shardscan", nodes, leaseKind, store, lease, elapsed, xacts);
        } finally {
            backlogs.forEach(ScanBacklogs::stop);
            engines.parallelStream().forEach(ScanEngine::stop);
            pools.forEach(Pg::close);
        }
    }

    private static Measure dbScheduler(
            Bench bench, String url, PrintStream out, int instances, int seconds, int warmupSeconds) throws Exception {
        OneTimeTask<Void> task = Tasks.oneTime("bench-noop").execute((instance, context) -> {});
        List<Pg> pools = new ArrayList<>();
        List<CountingDataSource> counted = new ArrayList<>();
        List<Scheduler> schedulers = new ArrayList<>();
        try {
            for (int i = 0; i < instances; i++) {
                Pg pool = new Pg(url, 12);
                pools.add(pool);
                counted.add(new CountingDataSource(pool.dataSource()));
                schedulers.add(Scheduler.create(counted.get(i).dataSource(), task)
                        .tableName(DbSchedulerRun.TABLE)
                        .schedulerName(new SchedulerName.Fixed("bench-idle-" + i))
                        .build());
            }
            schedulers.forEach(Scheduler::start);
            // past its start-up statements and first poll
            Thread.sleep(warmupSeconds * 1000L);
            XactWindow window = XactWindow.open(url, DATABASE);
            long before = total(counted);
            Thread.sleep(seconds * 1000L);
            long statements = total(counted) - before;
            double elapsed = window.seconds();
            long xacts = window.close();
            out.printf("  db-scheduler %d instance(s): %d statements in %.1f s%n", instances, statements, elapsed);
            return new Measure("db-scheduler", instances, "-", statements, 0, elapsed, xacts);
        } finally {
            schedulers.parallelStream().forEach(Scheduler::stop);
            pools.forEach(Pg::close);
        }
    }

    /** Statements of every pool so far, by their first words. */
    @SafeVarargs
    private static java.util.Map<String, Long> kinds(List<CountingDataSource>... sources) {
        java.util.Map<String, Long> kinds = new java.util.TreeMap<>();
        for (List<CountingDataSource> list : sources) {
            list.forEach(source -> source.byKind().forEach((kind, count) -> kinds.merge(kind, count, Long::sum)));
        }
        return kinds;
    }

    private static long total(List<CountingDataSource> sources) {
        return sources.stream().mapToLong(CountingDataSource::total).sum();
    }

    /** One system's window. */
    private record Measure(
            String system,
            int nodes,
            String leases,
            long storeStatements,
            long leaseStatements,
            double seconds,
            long serverXacts) {

        double perSecond() {
            return (storeStatements + leaseStatements) / seconds;
        }

        double serverPerSecond() {
            return serverXacts / seconds;
        }
    }
}
