package io.shardscan.core;

import java.time.Instant;

/**
 * The engine's only source of time. Wall time stamps rows and decides when a tier is due; the
 * monotonic reading times lease deadlines, which must not move when the wall clock is set.
 */
public interface ScanClock {

    /** The current wall time. */
    Instant now();

    /** A monotonic reading in nanoseconds, comparable only with other readings of this clock. */
    long nanos();

    /** The system clock. */
    static ScanClock system() {
        return SystemClock.INSTANCE;
    }

    /** The system clock as an enum singleton. */
    enum SystemClock implements ScanClock {
        INSTANCE;

        @Override
        public Instant now() {
            return Instant.now();
        }

        @Override
        public long nanos() {
            return System.nanoTime();
        }
    }
}
