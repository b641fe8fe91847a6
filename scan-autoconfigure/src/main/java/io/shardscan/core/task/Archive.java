package io.shardscan.core.task;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * How a task archives its finished rows: done rows (and dead ones when {@code includeDead}) last
 * updated at least {@code after} ago, by the database's clock, are moved to {@code table} or, when
 * it is {@code null}, deleted; {@code batch} rows at a time by the shard's owner while the shard
 * has nothing due, with {@code pause} between two batches of the task on one node. Immutable;
 * checked by {@link TaskDefinition}.
 *
 * @param after how long a row stays after it finished
 * @param table the archive table, with the scanned table's columns; {@code null} to delete instead
 * @param includeDead whether dead rows are archived too
 * @param batch the most rows one batch moves, in one transaction
 * @param pause the rest between two batches of the task on one node
 */
public record Archive(Duration after, @Nullable String table, boolean includeDead, int batch, Duration pause) {

    /** The value of {@code archive.to} that deletes rows instead of moving them. */
    public static final String DELETE = "delete";

    /** The value of {@code archive.to}: the table, or {@value #DELETE}. */
    public String to() {
        return table == null ? DELETE : table;
    }

    /**
     * How long a shard whose last batch found fewer rows than a batch waits before it looks again:
     * rows keep ageing past {@code after}, but a minute late is no matter for rows kept for days.
     */
    public Duration recheck() {
        Duration minute = Duration.ofMinutes(1);
        return after.compareTo(minute) < 0 ? after : minute;
    }
}
