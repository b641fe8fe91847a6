package io.shardscan.core.task;

import io.shardscan.core.spi.RangeCursor;
import java.util.Objects;

/**
 * What a run of a range task ({@code mode: range}) fixed when it started, so every node cuts the same
 * ranges for the whole run, whatever it is configured with meanwhile: the ids it covers and the size of
 * its ranges, with the kind of cursor it was started on. Immutable.
 *
 * @param lowId the table's lowest id when the run started; ranges start here
 * @param highId the table's highest id when the run started (a {@link RunMode#ONCE} run ends past it);
 *     {@code lowId - 1} when the table was empty
 * @param rangeSize how many ids each range of the run covers
 * @param cursor the kind of cursor the run started on ({@link RangeCursor#kind()})
 */
public record RunRange(long lowId, long highId, long rangeSize, String cursor) {

    public RunRange {
        Objects.requireNonNull(cursor, "cursor");
        if (rangeSize < 1) {
            throw new IllegalArgumentException("rangeSize must be at least 1, was " + rangeSize);
        }
    }

    /** How many ids lie between the run's lowest and highest id, gaps included. */
    public long span() {
        return Math.max(0, highId - lowId + 1);
    }

    /** How many ranges cover {@link #span()}. */
    public long rangeCount() {
        return (span() + rangeSize - 1) / rangeSize;
    }
}
