package io.shardscan.core;

import io.shardscan.core.spi.RangeProgress;
import io.shardscan.core.spi.RangeSnapshot;
import io.shardscan.core.spi.RangeStores;
import io.shardscan.core.spi.TaskRun;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.RunMode;
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
    /** Ids covered per second over the last window, every node together. */
    private double coveredRate;

    private long lastLogNanos;
    private long loggedProcessed = -1;
    /** The progress last seen, and when it was last seen to move. */
    private RangeProgress lastProgress = RangeProgress.NONE;

    private long movedNanos;

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
        RangeProgress progress = stores.progress(task.name(), run.id());
        windowNanos = clock.nanos();
        windowProcessed = progress.processed() + progress.failed();
        windowCovered = progress.coveredIds();
        coveredRate = 0;
        lastProgress = progress;
        movedNanos = windowNanos;
        lastLogNanos = windowNanos - LOG_INTERVAL.toNanos();
        long span = RangeRunner.range(run).span();
        snapshot = new RangeSnapshot(
                run, progress, span, percent(progress, span, run), 0, null, handledHere.get(), Duration.ZERO);
    }

    /** Reads the run's progress, and logs it when {@link #LOG_INTERVAL} passed and it moved. */
    synchronized void report(TaskRun run) {
        if (run.id() != snapshot.run().id()) {
            follow(run);
        }
        RangeProgress progress = stores.progress(task.name(), run.id());
        long runSpan = RangeRunner.range(run).span();
        long span = task.run() == RunMode.ONCE ? runSpan : Math.max(runSpan, spanNow(run));
        long now = clock.nanos();
        double seconds = (now - windowNanos) / 1e9;
        double rate = snapshot.rowsPerSecond();
        long handled = progress.processed() + progress.failed();
        if (now - windowNanos >= LOG_INTERVAL.toNanos() && seconds > 0) {
            rate = (handled - windowProcessed) / seconds;
            coveredRate = (progress.coveredIds() - windowCovered) / seconds;
            windowNanos = now;
            windowProcessed = handled;
            windowCovered = progress.coveredIds();
        }
        // the ETA is of the same ids as the percent, at the last window's pace, read at every report so
        // the two never disagree: in follow mode both are of the ids known at this look
        long left = span - progress.coveredIds();
        Duration eta = run.done() || coveredRate <= 0 || left <= 0
                ? null
                : Duration.ofSeconds((long) Math.ceil(left / coveredRate));
        if (!progress.equals(lastProgress)) {
            lastProgress = progress;
            movedNanos = now;
        }
        snapshot = new RangeSnapshot(
                run,
                progress,
                span,
                percent(progress, span, run),
                rate,
                eta,
                handledHere.get(),
                Duration.ofNanos(now - movedNanos));
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
                stores.progress(task.name(), run.id()),
                last.span(),
                100,
                last.rowsPerSecond(),
                null,
                handledHere.get(),
                Duration.ZERO);
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
                + (s.eta() == null ? "" : ", ETA " + human(s.eta()));
    }

    /** A duration as a person reads it: {@code 42s}, {@code 3m 20s}, {@code 1h 5m}, {@code 2d 3h}. */
    static String human(Duration duration) {
        long seconds = Math.max(0, duration.toSeconds());
        long days = seconds / 86_400;
        long hours = seconds % 86_400 / 3_600;
        long minutes = seconds % 3_600 / 60;
        long rest = seconds % 60;
        if (days > 0) {
            return days + "d" + (hours > 0 ? " " + hours + "h" : "");
        }
        if (hours > 0) {
            return hours + "h" + (minutes > 0 ? " " + minutes + "m" : "");
        }
        if (minutes > 0) {
            return minutes + "m" + (rest > 0 ? " " + rest + "s" : "");
        }
        return rest + "s";
    }
}
