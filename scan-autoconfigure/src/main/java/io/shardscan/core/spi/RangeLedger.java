package io.shardscan.core.spi;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The progress rows of a range task's runs: one per claimed range with its position, owner, epoch,
 * heartbeat and when it last moved. Epochs are issued here, by the database, and every write of an
 * owner is conditional on its epoch, so a stale owner changes nothing. Times are the store's own
 * clock. Thread-safe.
 */
public interface RangeLedger {

    /**
     * Opens the range {@code start}–{@code end} of the run for {@code owner} at epoch 1, position
     * {@code start - 1}.
     *
     * @return the lease, or empty when the range exists already (a cursor that handed it out twice)
     */
    Optional<RangeLease> open(String task, long run, long start, long end, String owner);

    /**
     * Takes over at most {@code limit} unfinished ranges of the run whose heartbeat is older than
     * {@code leaseTtl} (owner dead) or whose position has not moved for {@code stallTimeout} (owner
     * stuck), each with a new epoch, from its committed position.
     *
     * @return the ranges won, in start order; empty when none is due
     */
    List<RangeLease> takeOver(String task, long run, String owner, Duration leaseTtl, Duration stallTimeout, int limit);

    /**
     * Refreshes the heartbeat of the ranges {@code owner} holds with the given epochs.
     *
     * @param leases range start to epoch
     * @return the starts still held; a missing one was taken over and must be given up
     */
    List<Long> heartbeat(String task, long run, String owner, Map<Long, Long> leases);

    /**
     * Writes the owner's progress in one transaction, only while the range still holds the commit's
     * epoch: the position, the counts, the failures and whether it is done; marks it moved.
     *
     * @return {@code true} when written, {@code false} when a newer epoch took the range and nothing changed
     */
    boolean commit(String task, RangeCommit commit);

    /**
     * The run's progress, summed over its ranges.
     *
     * @return the sums; {@link RangeProgress#NONE} before the first range
     */
    RangeProgress progress(String task, long run);
}
