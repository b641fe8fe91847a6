package io.shardscan.core.spi;

/**
 * What a run did, counted from its write-backs on every node. Immutable.
 *
 * @param processed rows marked done
 * @param failed failures written back that left the row pending for a retry
 * @param dead rows marked dead
 */
public record RunCounts(long processed, long failed, long dead) {

    /** Nothing counted yet. */
    public static final RunCounts NONE = new RunCounts(0, 0, 0);

    /** These counts and {@code other} together. */
    public RunCounts plus(RunCounts other) {
        return new RunCounts(processed + other.processed, failed + other.failed, dead + other.dead);
    }
}
