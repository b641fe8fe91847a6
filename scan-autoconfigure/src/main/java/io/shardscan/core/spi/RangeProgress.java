package io.shardscan.core.spi;

/**
 * How far one run got, summed over its ranges' committed positions. Immutable.
 *
 * @param ranges ranges opened so far
 * @param rangesDone ranges finished
 * @param processed rows handled and committed, failed ones included, as the ledger sums them; as
 *     {@link RangeStores#progress} reports them, the rows that succeeded (a row redone after a takeover
 *     counts once)
 * @param failed rows recorded as failed by the commits, as the ledger sums them; as
 *     {@link RangeStores#progress} reports them, the rows recorded as failed now (a requeued row that
 *     succeeded is no longer among them)
 * @param coveredIds ids up to the committed positions, gaps included: the part of the id space behind the run
 */
public record RangeProgress(long ranges, long rangesDone, long processed, long failed, long coveredIds) {

    /** Nothing yet. */
    public static final RangeProgress NONE = new RangeProgress(0, 0, 0, 0, 0);
}
