package io.shardscan.core;

import io.shardscan.core.spi.StatementCancelledException;
import java.lang.System.Logger.Level;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The statements of one range task's workers and control thread, each named by its kind (page read,
 * position commit, cursor claim…). One that its store cancelled for running past the statement
 * timeout the store was built with ({@link StatementCancelledException}) fails as a
 * {@link StatementTimeout} naming the kind, the table, the timeout and the fix; it is logged at WARN
 * the first time its kind is seen, then at most once per {@link FailureLog#INTERVAL} with how many more
 * timed out the same way (a locked table cancels every worker's statement, again and again), and shows
 * in the health until a statement of its kind succeeds. The range it was part of fails as any scan
 * does: what it did not commit runs again from its committed position. Thread-safe.
 */
final class RangeStatements {

    private static final System.Logger log = ScanLogging.getLogger(RangeStatements.class);

    /** What becomes of a range whose statement was cancelled. */
    static final String RANGE_RUNS_AGAIN = "The range keeps its last committed position: what it did not commit"
            + " runs again from there, on this node or another, once the statement goes through";

    private final String task;
    private final ScanClock clock;
    private final TimedOutStatements timeouts;
    private final FailureLog failureLog = new FailureLog();

    RangeStatements(String task, ScanClock clock) {
        this.task = task;
        this.clock = clock;
        this.timeouts = new TimedOutStatements(clock);
    }

    /**
     * Runs one call of a range store, a statement of {@code kind}.
     *
     * @throws StatementTimeout in place of a {@link StatementCancelledException}, already logged
     */
    <T> T run(String kind, Supplier<T> statement) {
        T result;
        try {
            result = statement.get();
        } catch (RuntimeException e) {
            StatementCancelledException cancelled = cancelled(e);
            if (cancelled == null) {
                throw e;
            }
            StatementTimeout failure = timeouts.record(
                    new StatementTimeout(kind, cancelled.table(), cancelled.timeout(), RANGE_RUNS_AGAIN, e));
            warn(failure);
            throw failure;
        }
        timeouts.succeeded(kind);
        return result;
    }

    /** {@link #run(String, Supplier)} for a call without a result. */
    void run(String kind, Runnable statement) {
        run(kind, () -> {
            statement.run();
            return null;
        });
    }

    /** The last statement timeout, described; {@code null} when none, or when one of its kind succeeded since. */
    @Nullable
    String lastTimeout() {
        return timeouts.last();
    }

    /** How many statements were cancelled for running past their timeout since start. */
    long timeouts() {
        return timeouts.count();
    }

    private void warn(StatementTimeout failure) {
        long suppressed = failureLog.record(failure, 1, clock.nanos());
        String line = "Task " + task + ": " + failure.getMessage();
        if (suppressed < 0) {
            log.log(Level.DEBUG, () -> line);
            return;
        }
        log.log(
                Level.WARNING,
                line + (suppressed > 0 ? "; and " + suppressed + " more statements of this kind timed out since" : ""));
    }

    private static @Nullable StatementCancelledException cancelled(Throwable failure) {
        Throwable cause = failure;
        for (int depth = 0; cause != null && depth < 16; depth++, cause = cause.getCause()) {
            if (cause instanceof StatementCancelledException cancelled) {
                return cancelled;
            }
        }
        return null;
    }
}
