package io.shardscan.core;

import java.time.Duration;
import java.util.ArrayDeque;

/**
 * The highest id of a following range task's table as its scans read it over time, and the part of
 * the id space that is settled: ids up to one the table showed at least the follow grace ago. A
 * transaction that took a lower id before that one committed must have committed within the grace to
 * be run; so a page read now finds every id up to the settled bound it will ever find. Readings are
 * timed after the statement returned (the id was visible by then), so the bound errs towards waiting.
 * Shared by the workers of one task on one node. Thread-safe.
 */
final class IdHorizon {

    private final long graceNanos;
    /** Readings not yet settled, oldest first, each id higher than the one before: {nanos, id}. */
    private final ArrayDeque<long[]> pending = new ArrayDeque<>();

    private long latest = Long.MIN_VALUE;
    private long settled = Long.MIN_VALUE;

    IdHorizon(Duration grace) {
        this.graceNanos = grace.toNanos();
    }

    /** The table showed {@code maxId} as its highest id at {@code nanos}; a lower reading adds nothing. */
    synchronized void saw(long nanos, long maxId) {
        if (maxId <= latest) {
            return;
        }
        latest = maxId;
        // two workers may record out of order: never let a reading look older than the one before it
        long at = pending.isEmpty() ? nanos : Math.max(nanos, pending.peekLast()[0]);
        pending.addLast(new long[] {at, maxId});
    }

    /** The highest id read so far; {@link Long#MIN_VALUE} before the first reading. */
    synchronized long latest() {
        return latest;
    }

    /**
     * The highest id read at least the grace before {@code now}: every id up to it that will ever run
     * here has committed.
     *
     * @return {@link Long#MIN_VALUE} when no reading is that old
     */
    synchronized long settled(long now) {
        while (!pending.isEmpty() && now - pending.peekFirst()[0] >= graceNanos) {
            settled = pending.pollFirst()[1];
        }
        return settled;
    }
}
