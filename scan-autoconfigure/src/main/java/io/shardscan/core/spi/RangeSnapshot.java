package io.shardscan.core.spi;

import io.shardscan.core.task.RunMode;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * How far a range task's current run got, as the control thread last read it. Immutable.
 *
 * @param run the run, with its ids and range size ({@link TaskRun#range()})
 * @param progress the sums over its ranges
 * @param span the ids the run covers: its snapshot for {@link RunMode#ONCE}, up to the highest id
 *     now for {@link RunMode#FOLLOW}
 * @param percent the share of {@code span} behind committed positions, 0–100
 * @param rowsPerSecond rows committed per second over the last interval, all nodes together
 * @param eta how long the rest of the span takes at the recent pace; {@code null} when done, idle or unknown
 * @param handledHere rows this node handled and committed since it started
 * @param sinceProgress how long the run's progress (any range's committed position or counts) has not
 *     moved, as this node saw it, counted from when it started following the run; zero while it moves
 */
public record RangeSnapshot(
        TaskRun run,
        RangeProgress progress,
        long span,
        double percent,
        double rowsPerSecond,
        @Nullable Duration eta,
        long handledHere,
        Duration sinceProgress) {

    /**
     * Whether the run is stalled: not done, ids left to cover, and no progress for {@code stallTimeout}
     * (every range's owner stuck, and takeovers did not help, or no node scans it).
     */
    public boolean stalled(Duration stallTimeout) {
        return !run.done() && percent < 100 && sinceProgress.compareTo(stallTimeout) >= 0;
    }
}
