package io.shardscan.core;

/**
 * How far one run got, summed over its ranges' committed positions. Immutable.
 *
 * @param ranges ranges opened so far
 * @param rangesDone ranges finished
 * @param processed rows handled and committed, failed ones included; a row redone after a takeover counts once
 * @param failed rows recorded as failed (including ones since requeued)
 * @param coveredIds ids up to the committed positions, gaps included: the part of the id space behind the run
 */
public record RangeProgress(long ranges, long rangesDone, long processed, long failed, long coveredIds) {

    /** Nothing yet. */
    public static final RangeProgress NONE = new RangeProgress(0, 0, 0, 0, 0);
}
