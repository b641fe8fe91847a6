package io.shardscan.core;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Decides which row failures of one task are worth a WARN line: the first of each distinct
 * message, then at most one per message per interval, carrying how many were suppressed in
 * between. Remembers the 256 most recently seen messages, so a flood of distinct ones costs
 * bounded memory. Thread-safe.
 */
final class FailureLog {

    static final int MAX_MESSAGES = 256;
    static final Duration INTERVAL = Duration.ofMinutes(1);

    private final long intervalNanos;
    private final Map<String, Seen> seen = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Seen> eldest) {
            return size() > MAX_MESSAGES;
        }
    };

    FailureLog() {
        this(INTERVAL);
    }

    FailureLog(Duration interval) {
        this.intervalNanos = interval.toNanos();
    }

    /**
     * Records that {@code rows} rows failed with {@code message} at monotonic time {@code nanos}.
     *
     * @return how many rows failed the same way since the last WARN line of this message when this
     *     failure is to be logged at WARN (0 for the first), or -1 when it is to be logged at DEBUG only
     */
    synchronized long record(String message, int rows, long nanos) {
        Seen last = seen.get(message);
        if (last == null) {
            seen.put(message, new Seen(nanos));
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

    private static final class Seen {
        long warnedAt;
        long suppressed;

        Seen(long warnedAt) {
            this.warnedAt = warnedAt;
        }
    }
}
