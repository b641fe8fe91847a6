package io.shardscan.core;

import io.shardscan.core.spi.BacklogCounts;
import io.shardscan.core.spi.UnfetchableRows;
import io.shardscan.core.task.RetryRules;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.Tier;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * How much of a task is left, by tier: the store's counts folded into the task's tiers (rows past
 * the last tier count in the last one). Immutable.
 *
 * @param tiers one entry per tier, in tier order
 * @param dead dead rows
 * @param total pending rows of every tier, due or not ({@link #notYetDue()} of them are not due yet,
 *     {@link #withoutDueTime()} never are)
 * @param withoutShardKey pending rows whose shard key is NULL: counted in their tier, fetched by no shard
 * @param outsideShards pending rows whose shard column is outside the task's shards (a column
 *     generated for another shard count): counted in their tier, fetched by no shard
 * @param countedAt when the counts were taken
 * @param unfetchable pending rows no tier fetches for what the engine's columns hold: those whose
 *     retry count is NULL or negative are in no tier and not in {@code total}; failed rows without an
 *     updated-at are in their tier and in {@code total} too
 * @param tables for a sharded task, its tables with the most pending rows (and dead ones), at most
 *     {@link #TABLES_SHOWN}, the most first; empty for a task of one table
 */
public record Backlog(
        List<TierBacklog> tiers,
        long dead,
        long total,
        long withoutShardKey,
        long outsideShards,
        Instant countedAt,
        UnfetchableRows unfetchable,
        List<TableBacklog> tables) {

    /** The most tables a sharded task's backlog lists, so that a task of 1 024 tables stays one screen. */
    public static final int TABLES_SHOWN = 20;

    public Backlog {
        tiers = List.copyOf(tiers);
        tables = List.copyOf(tables);
    }

    /** A backlog of a task of one table. */
    public Backlog(
            List<TierBacklog> tiers,
            long dead,
            long total,
            long withoutShardKey,
            long outsideShards,
            Instant countedAt,
            UnfetchableRows unfetchable) {
        this(tiers, dead, total, withoutShardKey, outsideShards, countedAt, unfetchable, List.of());
    }

    /**
     * One table of a sharded task: its pending and dead rows.
     *
     * @param table the table's name
     * @param pending its pending rows, due or not
     * @param dead its dead rows
     */
    public record TableBacklog(String table, long pending, long dead) {}

    /**
     * This backlog with the tables of {@code byTable} that hold pending or dead rows, the most pending
     * first (then the most dead), at most {@link #TABLES_SHOWN}.
     */
    public Backlog withTables(java.util.Map<String, BacklogCounts> byTable) {
        List<TableBacklog> busy = byTable.entrySet().stream()
                .map(entry -> new TableBacklog(
                        entry.getKey(),
                        entry.getValue().pending().stream()
                                .mapToLong(BacklogCounts.Group::count)
                                .sum(),
                        entry.getValue().dead()))
                .filter(table -> table.pending() > 0 || table.dead() > 0)
                .sorted(java.util.Comparator.comparingLong(TableBacklog::pending)
                        .thenComparingLong(TableBacklog::dead)
                        .reversed())
                .limit(TABLES_SHOWN)
                .toList();
        return new Backlog(tiers, dead, total, withoutShardKey, outsideShards, countedAt, unfetchable, busy);
    }

    /** A backlog without rows that no tier fetches. */
    public Backlog(
            List<TierBacklog> tiers,
            long dead,
            long total,
            long withoutShardKey,
            long outsideShards,
            Instant countedAt) {
        this(tiers, dead, total, withoutShardKey, outsideShards, countedAt, UnfetchableRows.NONE);
    }

    /** A backlog without rows outside the task's shards. */
    public Backlog(List<TierBacklog> tiers, long dead, long total, long withoutShardKey, Instant countedAt) {
        this(tiers, dead, total, withoutShardKey, 0, countedAt);
    }

    /** Pending rows of every tier whose due time has not come (a task with a due-at column); in {@code total} too. */
    public long notYetDue() {
        return tiers.stream().mapToLong(TierBacklog::notYetDue).sum();
    }

    /**
     * Pending rows whose due-at value is NULL (a task with a due-at column): never due, so never run;
     * in {@code total} too, not in {@link #notYetDue()}.
     */
    public long withoutDueTime() {
        return tiers.stream().mapToLong(TierBacklog::withoutDueTime).sum();
    }

    /**
     * One tier's pending rows.
     *
     * @param retries the tier's retry range as configured, e.g. {@code "1-5"}
     * @param pending how many rows, due or not
     * @param oldestPendingAgeSeconds seconds since the least recently updated of them was last updated;
     *     for the fresh rows of a task with a due-at column, since the earliest due time (due-at plus
     *     delay) of those that are due, so rows waiting for their due time do not count; 0 when none
     * @param notYetDue how many of them are not due yet (a task with a due-at column)
     * @param withoutDueTime how many of them have a NULL due time and are never due; the rest are due
     */
    public record TierBacklog(
            String retries, long pending, long oldestPendingAgeSeconds, long notYetDue, long withoutDueTime) {

        /** A tier without rows whose due time is NULL. */
        public TierBacklog(String retries, long pending, long oldestPendingAgeSeconds, long notYetDue) {
            this(retries, pending, oldestPendingAgeSeconds, notYetDue, 0);
        }

        /** A tier of a task without a due-at column: every row is due. */
        public TierBacklog(String retries, long pending, long oldestPendingAgeSeconds) {
            this(retries, pending, oldestPendingAgeSeconds, 0);
        }
    }

    /**
     * Since when a group's oldest row has waited: a fresh row of a task with a due-at column since it
     * became due, any other since its last update (a failed row: its last failure).
     */
    private static @Nullable Instant waitingSince(TaskDefinition task, BacklogCounts.Group group) {
        if (task.delayed() && group.retries() == 0) {
            return group.oldestDueAt() == null ? null : group.oldestDueAt().plus(task.delay());
        }
        return group.oldestUpdatedAt();
    }

    /** Folds {@code counts} into the tiers of {@code task} as of {@code now}. */
    public static Backlog of(TaskDefinition task, BacklogCounts counts, Instant now) {
        List<TierBacklog> tiers = new ArrayList<>();
        long total = 0;
        RetryRules rules = task.retryRules();
        for (Tier tier : task.tiers()) {
            long pending = 0;
            long notYetDue = 0;
            long withoutDueTime = 0;
            Instant oldest = null;
            for (BacklogCounts.Group group : counts.pending()) {
                // a negative retry count is in no tier: tierOf would put it in the last one, which never fetches it
                if (group.retries() >= 0 && rules.tierOf(group.retries()).equals(tier)) {
                    pending += group.count();
                    notYetDue += group.notYetDue();
                    withoutDueTime += group.withoutDueTime();
                    Instant at = waitingSince(task, group);
                    oldest = at != null && (oldest == null || at.isBefore(oldest)) ? at : oldest;
                }
            }
            long age = oldest == null
                    ? 0
                    : Math.max(0, Duration.between(oldest, now).toSeconds());
            tiers.add(new TierBacklog(tier.label(), pending, age, notYetDue, withoutDueTime));
            total += pending;
        }
        return new Backlog(
                tiers,
                counts.dead(),
                total,
                counts.withoutShardKey(),
                counts.outsideShards(),
                now,
                counts.unfetchable());
    }
}
