package io.shardscan.actuate;

import io.shardscan.core.Backlog;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The last backlog count of every task, refreshed every {@code scan.backlog-refresh} on one daemon
 * thread of its own, so that reading a backlog never runs a query; a task in which nothing changes
 * is counted only every few refreshes ({@link io.shardscan.core.TaskView#countBacklogIfChanged}). A failed count keeps the previous
 * one. Each count is kept with the node's time when it was taken, so that a reader can age it. Thread-safe.
 */
public class ScanBacklogs extends Periodic {

    private static final System.Logger log = System.getLogger(ScanBacklogs.class.getName());

    private final ScanEngine engine;
    private final ScanClock clock;
    private final Map<String, Count> latest = new ConcurrentHashMap<>();
    private volatile boolean failing;

    /**
     * A task's backlog count and when this node took it.
     *
     * @param backlog the count, aged by the database's clock as of the count
     * @param takenAt the node's clock ({@link ScanClock#now()}) when the count came back; compare it
     *     only with readings of that clock, never with the backlog's own {@code countedAt}
     */
    public record Count(Backlog backlog, Instant takenAt) {

        public Count {
            Objects.requireNonNull(backlog, "backlog");
            Objects.requireNonNull(takenAt, "takenAt");
        }
    }

    /**
     * Creates the cache on the system clock; nothing is counted before {@link #start()}.
     *
     * @param refresh the delay between the end of one count of all tasks and the start of the next
     */
    public ScanBacklogs(ScanEngine engine, Duration refresh) {
        this(engine, refresh, ScanClock.system());
    }

    /**
     * Creates the cache; nothing is counted before {@link #start()}.
     *
     * @param refresh the delay between the end of one count of all tasks and the start of the next
     * @param clock the engine's clock, which stamps each count with {@link Count#takenAt()}
     */
    public ScanBacklogs(ScanEngine engine, Duration refresh, ScanClock clock) {
        super("scan-backlog", "scan.backlog-refresh", refresh, "10s");
        this.engine = Objects.requireNonNull(engine, "engine");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The task's last counted backlog, or {@code null} before its first count succeeded. */
    public @Nullable Backlog backlog(String task) {
        Count count = latest.get(task);
        return count == null ? null : count.backlog();
    }

    /** The task's last count with when it was taken, or {@code null} before its first count succeeded. */
    public @Nullable Count count(String task) {
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
                        : engine.task(task).countBacklogIfChanged(every());
                if (counted != null) {
                    latest.put(task, new Count(counted, clock.now()));
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

    /** One scheduled refresh: the tasks that may have changed. */
    @Override
    protected void runOnce() {
        refreshChanged();
    }
}
