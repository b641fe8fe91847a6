package io.shardscan.actuate;

import io.shardscan.core.Backlog;
import java.time.Instant;
import java.util.List;

/**
 * A task's backlog as last counted in the background. Immutable.
 *
 * @param tiers pending rows per tier, in tier order
 * @param dead dead rows
 * @param total pending rows of every tier, due or not
 * @param notYetDue pending rows whose due time has not come (a task with a due-at column), in {@code total} too
 * @param withoutShardKey pending rows whose shard key is NULL, which no shard fetches: give them a key
 * @param outsideShards pending rows whose shard column is outside the task's shards, which no shard
 *     fetches: the column was generated for another shard count (the log names the fix)
 * @param withoutDueTime pending rows whose due time is NULL (a task with a due-at column), which
 *     are never due: give them one; in {@code total} too, not in {@code notYetDue}
 * @param countedAt when the counts were taken
 * @param nullRetryCount pending rows whose retry count is NULL, which no tier fetches: give them 0
 *     and make the column NOT NULL DEFAULT 0 (the log names the statements); in no tier, not in {@code total}
 * @param negativeRetryCount pending rows whose retry count is negative, which no tier fetches: give
 *     them 0; in no tier, not in {@code total}
 * @param failedWithoutUpdatedAt failed pending rows whose updated-at is NULL, which are never due:
 *     give them one; in their tier and {@code total} too
 * @param tables for a sharded task, the tables with the most pending rows (and dead ones), at most
 *     {@link Backlog#TABLES_SHOWN}, the most first; empty for a task of one table
 */
public record BacklogDescriptor(
        List<TierDescriptor> tiers,
        long dead,
        long total,
        long notYetDue,
        long withoutShardKey,
        long outsideShards,
        long withoutDueTime,
        Instant countedAt,
        long nullRetryCount,
        long negativeRetryCount,
        long failedWithoutUpdatedAt,
        List<Backlog.TableBacklog> tables) {

    public BacklogDescriptor {
        tiers = List.copyOf(tiers);
        tables = List.copyOf(tables);
    }

    static BacklogDescriptor of(Backlog backlog) {
        List<TierDescriptor> tiers = backlog.tiers().stream()
                .map(t -> new TierDescriptor(t.retries(), t.pending(), t.notYetDue(), t.oldestPendingAgeSeconds()))
                .toList();
        return new BacklogDescriptor(
                tiers,
                backlog.dead(),
                backlog.total(),
                backlog.notYetDue(),
                backlog.withoutShardKey(),
                backlog.outsideShards(),
                backlog.withoutDueTime(),
                backlog.countedAt(),
                backlog.unfetchable().nullRetries(),
                backlog.unfetchable().negativeRetries(),
                backlog.unfetchable().failedWithoutUpdatedAt(),
                backlog.tables());
    }

    /**
     * One tier's pending rows.
     *
     * @param retries the tier's retry range, e.g. {@code "1-5"}
     * @param pending how many rows, due or not
     * @param notYetDue how many of them are not due yet (a task with a due-at column); the rest are due
     * @param oldestPendingAgeSeconds seconds since the least recently updated of them was updated; for
     *     the fresh rows of a task with a due-at column, since the earliest due time (plus delay) of
     *     those that are due; 0 when none
     */
    public record TierDescriptor(String retries, long pending, long notYetDue, long oldestPendingAgeSeconds) {}
}
