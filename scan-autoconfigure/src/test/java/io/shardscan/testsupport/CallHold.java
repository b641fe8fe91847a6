package io.shardscan.testsupport;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Holds the calls that pass it once told to, as a service that stopped answering does: each waits
 * until the latch opens (at most 60 s), and interrupts do not cut the wait, as a socket read's do not.
 * Thread-safe.
 */
public final class CallHold {

    private volatile @Nullable CountDownLatch until;
    private final AtomicInteger held = new AtomicInteger();

    /** From now on every call that passes waits until {@code open} opens. */
    public void holdUntil(CountDownLatch open) {
        until = open;
    }

    /** How many calls wait here right now. */
    public int held() {
        return held.get();
    }

    /** Where the call would reach the service: waits while told to hold. */
    public void pass() {
        CountDownLatch open = until;
        if (open == null) {
            return;
        }
        held.incrementAndGet();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (open.getCount() > 0 && System.nanoTime() - deadline < 0) {
                try {
                    open.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    // ignored, as a call that does not answer interrupts would
                }
            }
        } finally {
            held.decrementAndGet();
        }
    }
}
