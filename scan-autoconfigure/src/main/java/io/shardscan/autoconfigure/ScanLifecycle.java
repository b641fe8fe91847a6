package io.shardscan.autoconfigure;

import io.shardscan.core.ScanEngine;
import java.util.Objects;
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

    public ScanLifecycle(ScanEngine engine) {
        this.engine = Objects.requireNonNull(engine, "engine");
    }

    /** Starts the tasks; their tables were checked when the engine bean was created, before the web server started. */
    @Override
    public void start() {
        engine.start();
    }

    /** Stops claiming, lets running rounds finish within scan.shutdown-timeout and releases every lease. */
    @Override
    public void stop() {
        engine.stop();
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
