package io.shardscan.core;

/**
 * The shared cursor of a range task's run: every node claims its next block of ids from it in one
 * atomic step (Redis {@code INCRBY}, a conditional UPDATE in SQL). The cursor only hands out
 * offsets; which ranges exist is decided by {@link RangeLedger#open}, so a cursor that lost its value
 * (a Redis restart) hands out ranges again, which the ledger refuses, and never lets two nodes own one
 * range. Thread-safe.
 */
public interface RangeCursor {

    /**
     * Claims the next {@code size} offsets of the run's cursor.
     *
     * @return the first claimed offset: 0 for the run's first claim, and never one a concurrent claim
     *     returned
     */
    long claim(String task, long run, long size);

    /**
     * The offset the next {@link #claim} would return, without claiming.
     *
     * @return 0 when nothing was claimed yet
     */
    long peek(String task, long run);

    /** A short name of the kind of cursor, {@code redis} or {@code jdbc}. */
    String kind();
}
