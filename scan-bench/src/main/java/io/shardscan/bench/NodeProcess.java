package io.shardscan.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.redis.RedisShardCoordinator;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One Shardscan node in a JVM of its own, started by {@link Nodes}: {@code __node nodeId pgUrl redisUrl
 * task workers handlerMillis}. Prints {@code READY <nodeId>}, then every 500 ms {@code HEAP
 * used_mb=.. after_gc_mb=.. processed=..}; the end of standard input stops the engine gracefully,
 * prints a last {@code HEAP} line and exits. SIGKILL skips all of that, as a crash would.
 */
public final class NodeProcess {

    /** The hidden first argument of {@link Main} that runs a node. */
    public static final String COMMAND = "__node";

    private NodeProcess() {}

    /** Runs a node until standard input ends. */
    public static void run(String[] args) throws IOException {
        String node = args[0];
        String task = args[3];
        int workers = Integer.parseInt(args[4]);
        long handlerNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[5]));
        HeapWatch heap = new HeapWatch();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args[1]);
        config.setMaximumPoolSize(4);
        HikariDataSource dataSource = new HikariDataSource(config);
        List<AutoCloseable> redisCloseables = new ArrayList<>();
        TaskHandler.PerRow handler = (row, ctx) -> {
            if (handlerNanos > 0) {
                LockSupport.parkNanos(handlerNanos);
            }
            return null;
        };
        ScanEngine engine = Bench.engine(
                node,
                Bench.task(task, workers),
                handler,
                dataSource,
                new RedisShardCoordinator(Bench.redis(args[2], redisCloseables)));
        engine.start();
        System.out.println("READY " + node);
        System.out.flush();
        ScheduledExecutorService reporter = Executors.newSingleThreadScheduledExecutor();
        reporter.scheduleAtFixedRate(() -> report(heap, engine, task), 500, 500, TimeUnit.MILLISECONDS);
        while (System.in.read() >= 0) {
            // runs until the launching JVM closes the pipe
        }
        reporter.shutdownNow();
        engine.stop();
        report(heap, engine, task);
        System.out.println("STOPPED " + node);
        System.out.flush();
        for (AutoCloseable closeable : redisCloseables) {
            try {
                closeable.close();
            } catch (Exception e) {
                // exiting anyway
            }
        }
        dataSource.close();
        System.exit(0);
    }

    private static void report(HeapWatch heap, ScanEngine engine, String task) {
        System.out.println(String.format(
                Locale.ROOT,
                "HEAP used_mb=%.1f after_gc_mb=%.1f processed=%d",
                heap.peakUsedMb(),
                heap.peakAfterGcMb(),
                engine.task(task).stats().processed()));
        System.out.flush();
    }

    /** Reads {@code key=value} from a {@code HEAP} line. */
    static double field(String line, String key) {
        for (String part : line.split(" ")) {
            if (part.startsWith(key + "=")) {
                return Double.parseDouble(part.substring(key.length() + 1));
            }
        }
        throw new IllegalArgumentException(key + " not in " + line);
    }
}
