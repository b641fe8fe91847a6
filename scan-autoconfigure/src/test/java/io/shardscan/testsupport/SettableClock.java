package io.shardscan.testsupport;

import io.shardscan.core.ScanClock;
import java.time.Duration;
import java.time.Instant;

/**
 * A clock whose wall time tests move by hand; its monotonic reading is the real one, so leases keep
 * working, moved only by {@link #elapse}.
 */
public final class SettableClock implements ScanClock {

    private volatile Instant now;
    private volatile long offsetNanos;

    public SettableClock(Instant start) {
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

    public void advance(Duration duration) {
        now = now.plus(duration);
    }

    /**
     * As if {@code duration} passed: moves the wall time and the monotonic reading. Local deadlines
     * timed by this clock (a lease's, a grace window's) pass with it.
     */
    public void elapse(Duration duration) {
        offsetNanos += duration.toNanos();
        advance(duration);
    }
}
