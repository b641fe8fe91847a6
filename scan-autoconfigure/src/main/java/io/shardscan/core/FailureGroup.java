package io.shardscan.core;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The failed or dead rows of a task that share one last error. Immutable.
 *
 * @param error the last error text as the store keeps it, or {@code null} for rows without one
 * @param rows how many rows have it
 * @param firstSeen the earliest last update among them (the oldest of their latest failures)
 * @param lastSeen the latest last update among them
 * @param exampleIds a few of their ids, lowest first
 */
public record FailureGroup(
        @Nullable String error, long rows, Instant firstSeen, Instant lastSeen, List<Object> exampleIds) {

    public FailureGroup {
        exampleIds = List.copyOf(exampleIds);
    }
}
