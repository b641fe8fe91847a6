package io.shardscan.core.spi;

import java.util.List;

/**
 * What an owner writes back for one range: its new position, the rows handled since the last commit,
 * those of them that failed, and whether the range is finished. Immutable.
 *
 * @param run the run's id
 * @param start the range's first id
 * @param epoch the owner's epoch; the commit changes nothing under any other
 * @param position the last id whose row is handled
 * @param processed rows handled since the last commit, failed ones included
 * @param failures rows among them that failed every try
 * @param done whether every id of the range is handled
 */
public record RangeCommit(
        long run, long start, long epoch, long position, long processed, List<RangeFailure> failures, boolean done) {

    public RangeCommit {
        failures = List.copyOf(failures);
    }
}
