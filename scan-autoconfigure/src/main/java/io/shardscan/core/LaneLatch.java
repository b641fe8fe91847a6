package io.shardscan.core;

import java.util.concurrent.TimeUnit;

/**
 * The latch a round waits on for its lanes (seed 003's {@code CountDownLatch}), which also wakes
 * the round when a lane starts a call to a slow endpoint, so that the round can end without waiting
 * for that call once only such calls are left. Thread-safe.
 */
final class LaneLatch {

    private int running;
    private long changes;

    LaneLatch(int lanes) {
        this.running = lanes;
    }

    /** A lane ended; called once per lane. */
    synchronized void laneEnded() {
        running--;
        changes++;
        notifyAll();
    }

    /** A lane started a call that may outlast the round. */
    synchronized void slowCallStarted() {
        changes++;
        notifyAll();
    }

    /** Whether every lane ended. */
    synchronized boolean ended() {
        return running == 0;
    }

    /** A count of what happened so far, to pass to {@link #awaitChange}. */
    synchronized long changes() {
        return changes;
    }

    /**
     * Waits up to {@code nanos} until something happened after {@code seen} was read.
     *
     * @throws InterruptedException when the round's thread is interrupted (shutdown gives up on it)
     */
    synchronized void awaitChange(long seen, long nanos) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        long left = nanos;
        while (changes == seen && left > 0) {
            TimeUnit.NANOSECONDS.timedWait(this, left);
            left = deadline - System.nanoTime();
        }
    }
}
