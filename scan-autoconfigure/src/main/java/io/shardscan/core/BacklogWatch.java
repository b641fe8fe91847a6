package io.shardscan.core;

import io.shardscan.core.spi.BacklogCounts;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * When a task's backlog is counted again: at every refresh while something changes (this node
 * handled a row or its idle probe found one since the last count, or the last count differed from
 * the one before, as when other nodes work the table), else only every {@link #QUIET_REFRESHES}
 * refreshes, so a node with nothing to do runs the count's statements once a minute at the default
 * 10 s refresh instead of six times. What a quiet task can miss meanwhile: rows inserted into
 * another node's shards, rows whose due time has not come, and changes made outside the engine;
 * each shows at the next count. Thread-safe.
 */
final class BacklogWatch {

    /** How many refreshes a quiet task goes between counts. */
    static final int QUIET_REFRESHES = 6;

    private @Nullable BacklogCounts last;
    private boolean changed;
    private long activityAtCount;
    private long countedAtNanos;

    /** Whether a count is due at monotonic time {@code nanos}, given this node's {@code activity} so far. */
    synchronized boolean due(long activity, long nanos, Duration refresh) {
        return last == null
                || changed
                || activity != activityAtCount
                || nanos - countedAtNanos
                        >= refresh.multipliedBy(QUIET_REFRESHES).toNanos() - refresh.toNanos() / 2;
    }

    /**
     * A count was taken at {@code nanos}, with this node's {@code activity} as it was before it.
     *
     * @return the count before it; {@code null} for the first
     */
    /** The last count; {@code null} before the first. */
    synchronized @Nullable BacklogCounts last() {
        return last;
    }

    synchronized @Nullable BacklogCounts counted(BacklogCounts counts, long activity, long nanos) {
        BacklogCounts before = last;
        changed = last != null && !last.sameCounts(counts);
        last = counts;
        activityAtCount = activity;
        countedAtNanos = nanos;
        return before;
    }
}
