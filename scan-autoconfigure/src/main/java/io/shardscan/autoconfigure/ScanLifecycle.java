package io.shardscan.autoconfigure;

import io.shardscan.core.ScanEngine;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the scan engine once the context is refreshed and stops it gracefully on shutdown. Its
 * phase is late, so it starts after and stops before the web server and everything else with a
 * lower phase; the DataSource, which is no lifecycle bean, closes only after it stopped.
 */
public class ScanLifecycle implements SmartLifecycle {

    /** The phase: after the web server's graceful shutdown phase, so the engine stops first. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

    private final ScanEngine engine;
    private @Nullable CountDownLatch running;

    public ScanLifecycle(ScanEngine engine) {
        this.engine = Objects.requireNonNull(engine, "engine");
    }

    /**
     * Starts the tasks; their tables were checked when the engine bean was created, before the web
     * server started. While they run, one non-daemon thread keeps the JVM up: the engine's own threads
     * are daemons, and an application without a web server (a worker service) returned from {@code
     * main} and exited half a second after "started tasks", having handled nothing, with nothing in
     * the log to say why.
     */
    @Override
    public synchronized void start() {
        engine.start();
        CountDownLatch latch = new CountDownLatch(1);
        Thread keepAlive = new Thread(() -> awaitUninterruptibly(latch), "scan-keep-alive");
        keepAlive.setDaemon(false);
        keepAlive.start();
        running = latch;
    }

    /** Stops claiming, lets running rounds finish within scan.shutdown-timeout and releases every lease. */
    @Override
    public synchronized void stop() {
        try {
            engine.stop();
        } finally {
            if (running != null) {
                running.countDown();
                running = null;
            }
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        while (latch.getCount() > 0) {
            try {
                latch.await();
            } catch (InterruptedException e) {
                // only the stop ends it
            }
        }
    }

    @Override
    public void stop(Runnable callback) {
        // on the caller's thread, so the lifecycle processor's phase timeout cannot close the
        // DataSource under rounds that are still writing back
        try {
            stop();
        } finally {
            callback.run();
        }
    }

    @Override
    public boolean isRunning() {
        return engine.isRunning();
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
