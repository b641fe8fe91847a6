package io.shardscan.core;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * The statements of one task cancelled for running past {@link EngineSettings#statementTimeout()}:
 * counted, and the last one kept for the health ({@code statementTimedOut}) until a statement of its
 * kind succeeds, or for {@link #SHOWN} at most. Thread-safe.
 */
final class TimedOutStatements {

    /** A timeout is shown this long at most, unless a statement of its kind succeeds first. */
    static final Duration SHOWN = Duration.ofMinutes(5);

    private record TimedOut(String kind, String description, long atNanos) {}

    private final ScanClock clock;
    private final AtomicLong count = new AtomicLong();
    private final AtomicReference<@Nullable TimedOut> last = new AtomicReference<>();

    TimedOutStatements(ScanClock clock) {
        this.clock = clock;
    }

    /** A statement of {@code kind} ended without failing: a timeout of that kind no longer shows. */
    void succeeded(String kind) {
        last.updateAndGet(timedOut -> timedOut != null && timedOut.kind().equals(kind) ? null : timedOut);
    }

    /** Counts {@code failure} and keeps it as the last one; returns it. */
    StatementTimeout record(StatementTimeout failure) {
        // the failure first: a reader that sees the count go up reads it too
        last.set(new TimedOut(failure.kind(), failure.getMessage(), clock.nanos()));
        count.incrementAndGet();
        return failure;
    }

    /** The last statement timeout, described; {@code null} when none, or when one of its kind succeeded since. */
    @Nullable
    String last() {
        TimedOut timedOut = last.get();
        return timedOut == null || clock.nanos() - timedOut.atNanos() > SHOWN.toNanos() ? null : timedOut.description();
    }

    /** How many statements were cancelled for running past their timeout since start. */
    long count() {
        return count.get();
    }
}
