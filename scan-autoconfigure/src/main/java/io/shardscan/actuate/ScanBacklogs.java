package io.shardscan.actuate;

import io.shardscan.core.Backlog;
import io.shardscan.core.ScanEngine;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * The last backlog count of every task, refreshed every {@code scan.backlog-refresh} on one daemon
 * thread of its own, so that reading a backlog never runs a query; a task in which nothing changes
 * is counted only every few refreshes ({@link io.shardscan.core.TaskView#countBacklogIfChanged}). A failed count keeps the previous
 * one. Thread-safe.
 */
public class ScanBacklogs implements SmartLifecycle {

    private static final System.Logger log = System.getLogger(ScanBacklogs.class.getName());

    private final ScanEngine engine;
    private final Duration refresh;
    private final Map<String, Backlog> latest = new ConcurrentHashMap<>();
    private @Nullable ScheduledExecutorService executor;
    private volatile boolean failing;

    /**
     * Creates the cache; nothing is counted before {@link #start()}.
     *
     * @param refresh the delay between the end of one count of all tasks and the start of the next
     */
    public ScanBacklogs(ScanEngine engine, Duration refresh) {
        this.engine = Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(refresh, "refresh");
        if (refresh.isNegative() || refresh.isZero()) {
            throw new IllegalArgumentException("scan.backlog-refresh must be positive (was " + refresh + "), e.g. 10s");
        }
        this.refresh = refresh;
    }

    /** The task's last counted backlog, or {@code null} before its first count succeeded. */
    public @Nullable Backlog backlog(String task) {
        return latest.get(task);
    }

    /** Counts every task's backlog now, on the caller's thread; a task whose count fails keeps its last one. */
    public void refresh() {
        refresh(true);
    }

    /**
     * Counts the backlog of every task that may have changed, as the engine decides (a quiet task is
     * counted every few refreshes only), on the caller's thread.
     */
    public void refreshChanged() {
        refresh(false);
    }

    private void refresh(boolean all) {
        boolean failed = false;
        for (String task : engine.taskNames()) {
            try {
                Backlog counted = all
                        ? engine.task(task).countBacklog()
                        : engine.task(task).countBacklogIfChanged(refresh);
                if (counted != null) {
                    latest.put(task, counted);
                }
            } catch (RuntimeException e) {
                failed = true;
                if (!failing) {
                    log.log(Level.WARNING, "Cannot count the backlog of task " + task + "; keeping the last count", e);
                }
            }
        }
        if (failing && !failed) {
            log.log(Level.INFO, "Backlog counts are back");
        }
        failing = failed;
    }

    @Override
    public synchronized void start() {
        if (executor != null) {
            return;
        }
        ScheduledExecutorService started = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "scan-backlog");
            thread.setDaemon(true);
            return thread;
        });
        started.scheduleWithFixedDelay(this::refreshQuietly, 0, refresh.toMillis(), TimeUnit.MILLISECONDS);
        executor = started;
    }

    @Override
    public synchronized void stop() {
        if (executor != null) {
            executor.shutdownNow();
            executor = null;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return executor != null;
    }

    private void refreshQuietly() {
        try {
            refreshChanged();
        } catch (RuntimeException e) {
            // an exception would cancel the schedule for good
            log.log(Level.WARNING, "Backlog refresh failed", e);
        }
    }
}
