package io.shardscan.actuate;

import io.shardscan.core.TaskStats;
import io.shardscan.core.task.Archive;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * What a task archives and what this node archived of it. Immutable.
 *
 * @param to the archive table, or {@code delete}
 * @param after how long a row stays after it finished, as an ISO-8601 duration (e.g. {@code PT168H})
 * @param includeDead whether dead rows are archived too
 * @param rows finished rows this node moved or deleted since it started
 * @param lastRunAt when this node last ran an archive batch, whether or not it found rows; {@code null} before the first
 */
public record ArchiveDescriptor(
        String to,
        String after,
        boolean includeDead,
        long rows,
        @Nullable Instant lastRunAt) {

    /** Describes {@code archive} with this node's totals; {@code null} when the task does not archive. */
    static @Nullable ArchiveDescriptor of(@Nullable Archive archive, TaskStats stats) {
        if (archive == null) {
            return null;
        }
        return new ArchiveDescriptor(
                archive.to(),
                archive.after().toString(),
                archive.includeDead(),
                stats.archived(),
                stats.lastArchiveRunAt());
    }
}
