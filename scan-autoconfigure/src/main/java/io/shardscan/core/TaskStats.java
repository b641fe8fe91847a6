package io.shardscan.core;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/** Running totals of one task on this node. Thread-safe. */
public final class TaskStats {

    private final AtomicLong processed = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong dead = new AtomicLong();
    private final AtomicLong inFlight = new AtomicLong();
    private final AtomicLong latchTimeouts = new AtomicLong();
    private final AtomicReference<Instant> lastRoundAt = new AtomicReference<>();
    private volatile boolean storeReachable = true;

    void recorded(WriteBack batch) {
        processed.addAndGet(batch.done().size());
        failed.addAndGet(batch.failed().size());
        dead.addAndGet(batch.dead().size());
        lastRoundAt.set(batch.at());
    }

    void storeReached(boolean reached) {
        storeReachable = reached;
    }

    /** Whether the last round on this node reached the database; {@code true} before the first. */
    public boolean storeReachable() {
        return storeReachable;
    }

    void latchTimedOut() {
        latchTimeouts.incrementAndGet();
    }

    void inFlight(int delta) {
        inFlight.addAndGet(delta);
    }

    /** Rows this node marked done. */
    public long processed() {
        return processed.get();
    }

    /** Failures this node wrote back that left the row pending. */
    public long failed() {
        return failed.get();
    }

    /** Rows this node marked dead. */
    public long dead() {
        return dead.get();
    }

    /** Rows whose handler runs right now. */
    public long inFlight() {
        return inFlight.get();
    }

    /** Rounds whose latch did not open within the task's round timeout. */
    public long latchTimeouts() {
        return latchTimeouts.get();
    }

    /** When this node last wrote a round back, or {@code null} before the first. */
    public Instant lastRoundAt() {
        return lastRoundAt.get();
    }
}
