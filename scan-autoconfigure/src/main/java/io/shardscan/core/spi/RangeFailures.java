package io.shardscan.core.spi;

import java.util.List;

/**
 * The rows of a range task's runs that failed every in-place try (written by
 * {@link RangeLedger#commit}): read for the actuator and taken one by one for a requeue. Thread-safe.
 */
public interface RangeFailures {

    /** How many failed rows the run holds now. */
    long count(String task, long run);

    /**
     * The most recent failures of the run.
     *
     * @return at most {@code limit}, the newest first; empty when none
     */
    List<RangeFailure> recent(String task, long run, int limit);

    /**
     * Removes one failure so that the caller runs its row again; of several callers only one gets it.
     *
     * @return {@code true} for the caller that removed it
     */
    boolean take(String task, long run, long id);

    /** Records a row that failed again after a requeue, replacing any record of it. */
    void record(String task, long run, RangeFailure failure);
}
