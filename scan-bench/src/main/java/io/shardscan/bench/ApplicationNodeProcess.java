package io.shardscan.bench;

import io.shardscan.core.TaskView;
import io.shardscan.testsupport.CountingDataSource;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One Shardscan node as a service runs it, in a JVM of its own, started by {@link Nodes}: {@code
 * __application-node nodeId pgUrl redisUrl workers}. The node is a Spring Boot application ({@link
 * ScanApplication}: the starter's auto-configuration, {@code scan.tasks.bench-throughput.*} properties and
 * the {@code @ScanTask} method of {@link ScanTaskJobs}), leases in Redis, its DataSource a pool of 10 (Hikari's
 * default) wrapped in a {@link CountingDataSource}. Prints {@code READY <nodeId>} once the application runs,
 * then every {@link #REPORT_MILLIS} ms {@code STATS go=0|1 processed=.. statements=.. lease_statements=..
 * leases_lost=.. shards=..}: rows written back done, and statements and leases lost since {@code GO}. A line {@code GO} on standard input
 * resumes the task everywhere (the launcher paused it before the nodes started, so they claim their leases
 * first); the end of standard input closes the application gracefully, prints a last {@code STATS} line
 * and exits.
 */
final class ApplicationNodeProcess {

    /** The hidden first argument of {@link Main} that runs such a node. */
    static final String COMMAND = "__application-node";

    /** The line that starts the node's work. */
    static final String GO = "GO";

    /** How often a node prints its counts. */
    static final long REPORT_MILLIS = 25;

    private final CountingDataSource counted;
    private final TaskView task;
    private volatile boolean go;
    private volatile long statementsAtGo;
    private volatile long leaseStatementsAtGo;
    private volatile long leasesLostAtGo;

    private ApplicationNodeProcess(CountingDataSource counted, TaskView task) {
        this.counted = counted;
        this.task = task;
    }

    /** Runs a node until standard input ends. */
    static void run(String[] args) throws IOException {
        String node = args[0];
        int workers = Integer.parseInt(args[3]);
        List<AutoCloseable> closeables = new ArrayList<>();
        Pg pool = new Pg(args[1], 10);
        CountingDataSource counted = new CountingDataSource(pool.dataSource());
        Map<String, Object> properties = ScanTaskJobs.properties(workers);
        properties.put("scan.node-id", node);
        ScanApplication application = ScanApplication.start(
                Map.of("dataSource", counted.dataSource()),
                new ScanTaskJobs(),
                properties,
                Bench.starterRedis(args[2], closeables));
        ApplicationNodeProcess process =
                new ApplicationNodeProcess(counted, application.engine().task(ScanTaskJobs.TASK));
        System.out.println("READY " + node);
        System.out.flush();
        ScheduledExecutorService reporter = Executors.newSingleThreadScheduledExecutor();
        reporter.scheduleAtFixedRate(process::report, REPORT_MILLIS, REPORT_MILLIS, TimeUnit.MILLISECONDS);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.equals(GO)) {
                process.go();
            }
        }
        reporter.shutdownNow();
        application.close();
        process.report();
        System.out.println("STOPPED " + node);
        System.out.flush();
        for (AutoCloseable closeable : closeables) {
            try {
                closeable.close();
            } catch (Exception e) {
                // exiting anyway
            }
        }
        pool.close();
        System.exit(0);
    }

    /** Counts from here on, then resumes the task on every node, as the scan endpoint's resume does. */
    private void go() {
        statementsAtGo = counted.total();
        leaseStatementsAtGo = leaseStatements(counted);
        leasesLostAtGo = task.stats().leasesLost();
        go = true;
        task.resumeEverywhere();
    }

    private synchronized void report() {
        boolean started = go;
        long statements = counted.total() - (started ? statementsAtGo : 0);
        long leases = leaseStatements(counted) - (started ? leaseStatementsAtGo : 0);
        long lost = task.stats().leasesLost() - (started ? leasesLostAtGo : 0);
        System.out.println(
                "STATS go=" + (started ? 1 : 0) + " processed=" + task.stats().processed()
                        + " statements=" + statements + " lease_statements=" + leases + " leases_lost=" + lost
                        + " shards=" + task.ownedShards().size());
        System.out.flush();
    }

    /** Statements whose first 60 characters name a JDBC coordinator's table: none while leases are in Redis. */
    private static long leaseStatements(CountingDataSource counted) {
        return counted.byKind().entrySet().stream()
                .filter(e -> e.getKey().contains("scan_lease") || e.getKey().contains("scan_member"))
                .mapToLong(Map.Entry::getValue)
                .sum();
    }
}
