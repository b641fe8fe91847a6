package io.shardscan.testsupport;

import io.shardscan.core.ScanClock;
import java.time.Duration;
import java.time.Instant;

/** A clock whose wall time tests move by hand; its monotonic reading is the real one, so leases keep working. */
public final class SettableClock implements ScanClock {

    private volatile Instant now;

    public SettableClock(Instant start) {
        this.now = start;
    }

    @Override
    public Instant now() {
        return now;
    }

    @Override
    public long nanos() {
        return System.nanoTime();
    }

    public void advance(Duration duration) {
        now = now.plus(duration);
    }
}
