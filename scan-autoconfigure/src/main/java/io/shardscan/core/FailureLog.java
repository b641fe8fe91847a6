package io.shardscan.core;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Decides which row failures of one task are worth a WARN line: the first of each kind, then at
 * most one per kind per interval, carrying how many were suppressed in between. A kind is the
 * exception's class and the site that threw it (its first stack frame), not its message: a handler
 * that puts row data in its messages ("order 123 refused") would otherwise make every row a new
 * kind and log each one. Remembers the 256 most recently seen kinds, so a flood of distinct ones
 * costs bounded memory. Thread-safe.
 */
final class FailureLog {

    static final int MAX_KINDS = 256;
    static final Duration INTERVAL = Duration.ofMinutes(1);

    private final long intervalNanos;
    private final Map<String, Seen> seen = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Seen> eldest) {
            return size() > MAX_KINDS;
        }
    };

    FailureLog() {
        this(INTERVAL);
    }

    FailureLog(Duration interval) {
        this.intervalNanos = interval.toNanos();
    }

    /**
     * The kind of {@code failure}: its class and the frame that threw it, or its class alone when
     * it carries no stack trace; for a {@link StatementTimeout}, also the statement's kind, as every
     * timeout is thrown from one frame and a cancelled fence must not hide a cancelled fetch.
     */
    static String kindOf(Throwable failure) {
        StackTraceElement[] trace = failure.getStackTrace();
        String kind = failure instanceof StatementTimeout timeout
                ? failure.getClass().getName() + " (" + timeout.kind() + ")"
                : failure.getClass().getName();
        return trace.length == 0 ? kind : kind + " at " + trace[0];
    }

    /** Records that {@code rows} rows failed with {@code failure} at monotonic time {@code nanos}. */
    long record(Throwable failure, int rows, long nanos) {
        return record(kindOf(failure), rows, nanos);
    }

    /**
     * Records that {@code rows} rows failed in the way {@code kind} at monotonic time {@code nanos}.
     *
     * @return how many rows failed the same way since the last WARN line of this kind when this
     *     failure is to be logged at WARN (0 for the first), or -1 when it is to be logged at DEBUG only
     */
    synchronized long record(String kind, int rows, long nanos) {
        Seen last = seen.get(kind);
        if (last == null) {
            seen.put(kind, new Seen(nanos));
            return 0;
        }
        if (nanos - last.warnedAt >= intervalNanos) {
            long suppressed = last.suppressed;
            last.warnedAt = nanos;
            last.suppressed = 0;
            return suppressed;
        }
        last.suppressed += rows;
        return -1;
    }

    /**
     * The kinds whose last WARN line is an interval old and that failed again since, with how many
     * rows (or rounds, or probes) failed so; from {@code nanos} on each counts as just logged. Asked
     * periodically, so that failures which stop within the interval still end in a line with their
     * count, not in DEBUG alone.
     *
     * @return kind to count, in the order the kinds were last seen; empty when none
     */
    synchronized Map<String, Long> overdue(long nanos) {
        Map<String, Long> due = new LinkedHashMap<>();
        for (Map.Entry<String, Seen> entry : seen.entrySet()) {
            Seen last = entry.getValue();
            if (last.suppressed > 0 && nanos - last.warnedAt >= intervalNanos) {
                due.put(entry.getKey(), last.suppressed);
                last.warnedAt = nanos;
                last.suppressed = 0;
            }
        }
        return due;
    }

    private static final class Seen {
        long warnedAt;
        long suppressed;

        Seen(long warnedAt) {
            this.warnedAt = warnedAt;
        }
    }
}
