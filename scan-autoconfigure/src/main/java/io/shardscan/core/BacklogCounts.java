package io.shardscan.core;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a store counted of a task's table: pending rows grouped by retry count, and dead rows.
 * Immutable.
 *
 * @param pending one group per retry count that has pending rows
 * @param dead the number of dead rows
 */
public record BacklogCounts(List<Group> pending, long dead) {

    public BacklogCounts {
        pending = List.copyOf(pending);
    }

    /**
     * Pending rows with one retry count.
     *
     * @param retries the retry count
     * @param count how many rows
     * @param oldestUpdatedAt the earliest last update among them, or {@code null} when unknown
     */
    public record Group(int retries, long count, @Nullable Instant oldestUpdatedAt) {}
}
