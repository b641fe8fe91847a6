package io.shardscan.core;

import java.time.Duration;
import java.time.Instant;

/**
 * A {@link ScanClock} whose wall time a test moves by hand, so that a tier interval, a delay or a
 * retry's rest passes without waiting for it. Declare it as the application's {@code ScanClock} bean
 * in a test (the auto-configuration's system clock backs off), start the rows, then
 * {@link #advance advance} it past the interval and {@link ScanTasks#drain drain} the task:
 *
 * <pre>{@code
 * @TestConfiguration
 * class ClockConfig {
 *     @Bean
 *     SettableScanClock scanClock() {
 *         return new SettableScanClock(Instant.parse("2026-01-01T00:00:00Z"));
 *     }
 * }
 * }</pre>
 *
 * <p>Its monotonic reading is the real one plus whatever {@link #elapse} added, so leases keep working
 * while only the wall time moves. Rows' own times (an updated-at or due-at column) are the database's:
 * a test moves those with the row.
 */
public final class SettableScanClock implements ScanClock {

    private volatile Instant now;
    private volatile long offsetNanos;

    /** A clock whose wall time stands at {@code start} until moved. */
    public SettableScanClock(Instant start) {
        this.now = start;
    }

    @Override
    public Instant now() {
        return now;
    }

    @Override
    public long nanos() {
        return System.nanoTime() + offsetNanos;
    }

    /** Moves the wall time by {@code duration}; lease deadlines, timed monotonically, do not move. */
    public void advance(Duration duration) {
        now = now.plus(duration);
    }

    /**
     * As if {@code duration} passed: moves the wall time and the monotonic reading, so local deadlines
     * timed by this clock (a lease's, a grace window's) pass with it.
     */
    public void elapse(Duration duration) {
        offsetNanos += duration.toNanos();
        advance(duration);
    }
}
