package io.shardscan.dashboard;

import io.shardscan.core.spi.FailureGroup;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A {@link FailureGroup} as the dashboard's API sends it: its example ids as text, since JavaScript
 * reads a JSON number above 2^53 - 1 rounded, as another row's id, and a requeue of that id would
 * requeue the other row. Immutable.
 *
 * @param exampleIds a few of the group's ids, lowest first, each as its decimal text
 * @param tables for a sharded task, the tables that hold the most of the group's rows, the most first;
 *     empty for a task of one table
 * @see FailureGroup for the other fields
 */
record FailureGroupDescriptor(
        @Nullable String error,
        long rows,
        Instant firstSeen,
        Instant lastSeen,
        List<String> exampleIds,
        @Nullable String example,
        List<FailureGroup.TableRows> tables) {

    static FailureGroupDescriptor of(FailureGroup group) {
        return new FailureGroupDescriptor(
                group.error(),
                group.rows(),
                group.firstSeen(),
                group.lastSeen(),
                group.exampleIds().stream().map(String::valueOf).toList(),
                group.example(),
                group.tables());
    }
}
