package io.shardscan.core.spi;

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

    /**
     * Run {@code run} ended: its cursor and those of the task's earlier runs are no longer claimed from.
     * Removes the earlier runs' cursors at once; {@code run}'s own is kept a while (Redis: it expires
     * after {@link #RETIRED_TTL}; JDBC: its one row stays until the next run ends), since a node that
     * has not yet seen the end may still read or claim it once.
     */
    void retire(String task, long run);

    /** How long a Redis cursor outlives the end of its run. */
    java.time.Duration RETIRED_TTL = java.time.Duration.ofHours(1);

    /** A short name of the kind of cursor, {@code redis} or {@code jdbc}. */
    String kind();
}
