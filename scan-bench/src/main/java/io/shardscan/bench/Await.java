package io.shardscan.bench;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Polls a condition until it holds or a timeout passes. */
final class Await {

    private Await() {}

    /**
     * Waits until {@code condition} is true.
     *
     * @return the nanoseconds waited
     * @throws TimeoutException naming {@code what} when the timeout passes first
     */
    static long until(String what, Duration timeout, Duration poll, Callable<Boolean> condition) throws Exception {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        while (!condition.call()) {
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("timed out after " + timeout + " waiting for " + what);
            }
            TimeUnit.NANOSECONDS.sleep(poll.toNanos());
        }
        return System.nanoTime() - start;
    }

    /** Whether {@code condition} came true within {@code timeout}. */
    static boolean within(Duration timeout, Duration poll, Callable<Boolean> condition) throws Exception {
        try {
            until("", timeout, poll, condition);
            return true;
        } catch (TimeoutException e) {
            return false;
        }
    }

    static double seconds(long nanos) {
        return nanos / 1e9;
    }
}
