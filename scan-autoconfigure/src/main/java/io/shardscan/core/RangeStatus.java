package io.shardscan.core;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The progress of a range task's current run: read from the ledger by the control thread (so that
 * views and metrics run no SQL), with the pace over the last {@link #LOG_INTERVAL} and a log line at
 * most that often, when something moved. Thread-safe.
 */
final class RangeStatus {

    private static final System.Logger log = ScanLogging.getLogger(RangeStatus.class);

    /** How often at most a progress line is logged, and the window the pace is measured over. */
    static final Duration LOG_INTERVAL = Duration.ofSeconds(10);

    private final RangeTask task;
    private final RangeStores stores;
    private final ScanClock clock;
    private final AtomicLong handledHere = new AtomicLong();
    private volatile RangeSnapshot snapshot;
    private long windowNanos;
    private long windowProcessed;
    private long windowCovered;
    private long lastLogNanos;
    private long loggedProcessed = -1;

    RangeStatus(RangeTask task, RangeStores stores, ScanClock clock) {
        this.task = task;
        this.stores = stores;
        this.clock = clock;
    }

    RangeSnapshot snapshot() {
        return snapshot;
    }

    void handled(long rows) {
        handledHere.addAndGet(rows);
    }

    /** Starts measuring a run (again): the pace starts from its progress now. */
    synchronized void follow(TaskRun run) {
        RangeProgress progress = stores.ledger().progress(task.name(), run.id());
        windowNanos = clock.nanos();
        windowProcessed = progress.processed();
        windowCovered = progress.coveredIds();
        lastLogNanos = windowNanos - LOG_INTERVAL.toNanos();
        long span = RangeRunner.range(run).span();
        snapshot = new RangeSnapshot(run, progress, span, percent(progress, span, run), 0, null, handledHere.get());
    }

    /** Reads the run's progress, and logs it when {@link #LOG_INTERVAL} passed and it moved. */
    synchronized void report(TaskRun run) {
        if (run.id() != snapshot.run().id()) {
            follow(run);
        }
        RangeProgress progress = stores.ledger().progress(task.name(), run.id());
        long runSpan = RangeRunner.range(run).span();
        long span = task.run() == RunMode.ONCE ? runSpan : Math.max(runSpan, spanNow(run));
        long now = clock.nanos();
        double seconds = (now - windowNanos) / 1e9;
        RangeSnapshot previous = snapshot;
        double rate = previous.rowsPerSecond();
        Duration eta = previous.eta();
        boolean windowPassed = now - windowNanos >= LOG_INTERVAL.toNanos();
        if (windowPassed && seconds > 0) {
            rate = (progress.processed() - windowProcessed) / seconds;
            double coveredRate = (progress.coveredIds() - windowCovered) / seconds;
            long left = span - progress.coveredIds();
            eta = run.done() || coveredRate <= 0 || left <= 0 ? null : Duration.ofSeconds((long) (left / coveredRate));
            windowNanos = now;
            windowProcessed = progress.processed();
            windowCovered = progress.coveredIds();
        }
        snapshot = new RangeSnapshot(
                run, progress, span, percent(progress, span, run), rate, run.done() ? null : eta, handledHere.get());
        if (now - lastLogNanos >= LOG_INTERVAL.toNanos() && progress.processed() != loggedProcessed && !run.done()) {
            lastLogNanos = now;
            loggedProcessed = progress.processed();
            log.log(Level.INFO, line(snapshot));
        }
    }

    /** The run ended: its snapshot says DONE at once, not at the next tick. */
    synchronized void finished() {
        RangeSnapshot last = snapshot;
        TaskRun run = Objects.requireNonNull(stores.runs().current(task.definition()), "run");
        snapshot = new RangeSnapshot(
                run,
                stores.ledger().progress(task.name(), run.id()),
                last.span(),
                100,
                last.rowsPerSecond(),
                null,
                handledHere.get());
    }

    private long spanNow(TaskRun run) {
        long max = stores.table().maxId(task);
        return max == Long.MIN_VALUE
                ? 0
                : Math.max(0, max - RangeRunner.range(run).lowId() + 1);
    }

    private static double percent(RangeProgress progress, long span, TaskRun run) {
        if (run.done() || span == 0) {
            return run.done() ? 100 : 0;
        }
        return Math.min(100, 100.0 * progress.coveredIds() / span);
    }

    /** The progress line, e.g. {@code notify-users run 1: 120000 processed (3 failed), 42.0% of 285714 ids, 5120 rows/s, ETA 32s}. */
    String line(RangeSnapshot s) {
        return task.name() + " run " + s.run().id() + ": " + s.progress().processed() + " processed ("
                + s.progress().failed() + " failed), " + String.format(java.util.Locale.ROOT, "%.1f", s.percent())
                + "% of " + s.span() + " ids, " + Math.round(s.rowsPerSecond()) + " rows/s"
                + (s.eta() == null ? "" : ", ETA " + s.eta());
    }
}
