package io.shardscan.core.spi;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a store counted of a task's table: pending rows grouped by retry count, dead rows, and
 * pending rows that no shard fetches (their shard key is NULL, or their shard column is outside the
 * task's shards) or no tier fetches (their retry count is NULL; see {@link UnfetchableRows}). Immutable.
 *
 * @param pending one group per retry count that has pending rows
 * @param dead the number of dead rows
 * @param withoutShardKey pending rows whose shard key is NULL, counted in {@code pending} too
 * @param outsideShards pending rows whose shard column holds a value outside 0..N-1 of the task's N
 *     shards (a column generated for another shard count), counted in {@code pending} too; {@code 0}
 *     for a store without a shard column
 * @param withoutRetryCount pending rows whose retry count is NULL, in no group of {@code pending}
 * @param countedAt the store's clock when it counted, against which the groups' last updates and due
 *     times (which that clock stamped or compares) are aged; {@code null} for a store without a clock
 *     of its own: then the node's
 */
public record BacklogCounts(
        List<Group> pending,
        long dead,
        long withoutShardKey,
        long outsideShards,
        long withoutRetryCount,
        @Nullable Instant countedAt) {

    public BacklogCounts {
        pending = List.copyOf(pending);
    }

    /** Whether {@code other} counted the same rows, whenever it counted them. */
    public boolean sameCounts(BacklogCounts other) {
        return pending.equals(other.pending)
                && dead == other.dead
                && withoutShardKey == other.withoutShardKey
                && outsideShards == other.outsideShards
                && withoutRetryCount == other.withoutRetryCount;
    }

    /** Counts whose every pending row has a retry count, aged by the node's clock. */
    public BacklogCounts(List<Group> pending, long dead, long withoutShardKey, long outsideShards) {
        this(pending, dead, withoutShardKey, outsideShards, 0, null);
    }

    /** Counts of a store whose rows all have a shard of the task's: one computed from the key, or none. */
    public BacklogCounts(List<Group> pending, long dead, long withoutShardKey) {
        this(pending, dead, withoutShardKey, 0);
    }

    /**
     * Pending rows with one retry count.
     *
     * @param retries the retry count
     * @param count how many rows
     * @param oldestUpdatedAt the earliest last update among them, or {@code null} when unknown
     * @param notYetDue how many of them are not due yet (a task with a due-at column), counted in {@code count} too
     * @param withoutDueTime how many of them have a NULL due-at value and are never due, counted in
     *     {@code count} but not in {@code notYetDue}
     * @param oldestDueAt the earliest due-at value (without the delay) among its rows that are due,
     *     {@code null} when none is or the task has no due-at column
     * @param withoutUpdatedAt how many of them have a NULL updated-at, counted in {@code count} too
     */
    public record Group(
            int retries,
            long count,
            @Nullable Instant oldestUpdatedAt,
            long notYetDue,
            long withoutDueTime,
            @Nullable Instant oldestDueAt,
            long withoutUpdatedAt) {

        /** A group whose rows all have an updated-at. */
        public Group(
                int retries,
                long count,
                @Nullable Instant oldestUpdatedAt,
                long notYetDue,
                long withoutDueTime,
                @Nullable Instant oldestDueAt) {
            this(retries, count, oldestUpdatedAt, notYetDue, withoutDueTime, oldestDueAt, 0);
        }

        /** A group without the due time of its oldest due row. */
        public Group(int retries, long count, @Nullable Instant oldestUpdatedAt, long notYetDue, long withoutDueTime) {
            this(retries, count, oldestUpdatedAt, notYetDue, withoutDueTime, null);
        }

        /** A group without rows whose due time is NULL. */
        public Group(int retries, long count, @Nullable Instant oldestUpdatedAt, long notYetDue) {
            this(retries, count, oldestUpdatedAt, notYetDue, 0);
        }

        /** A group of a task without a due-at column: every row is due. */
        public Group(int retries, long count, @Nullable Instant oldestUpdatedAt) {
            this(retries, count, oldestUpdatedAt, 0);
        }

        /** Both groups of one retry count as one: counts summed, the earlier oldest times. */
        Group plus(Group other) {
            return new Group(
                    retries,
                    count + other.count,
                    earlier(oldestUpdatedAt, other.oldestUpdatedAt),
                    notYetDue + other.notYetDue,
                    withoutDueTime + other.withoutDueTime,
                    earlier(oldestDueAt, other.oldestDueAt),
                    withoutUpdatedAt + other.withoutUpdatedAt);
        }

        private static @Nullable Instant earlier(@Nullable Instant a, @Nullable Instant b) {
            return a == null ? b : b == null || a.isBefore(b) ? a : b;
        }
    }

    /**
     * The unfetchable rows among these counts: the rows without a retry count, the groups of a
     * negative retry count, and the rows without an updated-at of the groups of failed rows.
     */
    /**
     * These counts and {@code other}'s together, as of one backlog over both tables: each retry
     * count's group summed, with the older oldest times; the later count time.
     */
    public BacklogCounts plus(BacklogCounts other) {
        java.util.Map<Integer, Group> groups = new java.util.TreeMap<>();
        for (Group group : pending) {
            groups.put(group.retries(), group);
        }
        for (Group group : other.pending) {
            groups.merge(group.retries(), group, Group::plus);
        }
        return new BacklogCounts(
                List.copyOf(groups.values()),
                dead + other.dead,
                withoutShardKey + other.withoutShardKey,
                outsideShards + other.outsideShards,
                withoutRetryCount + other.withoutRetryCount,
                countedAt == null || (other.countedAt != null && other.countedAt.isAfter(countedAt))
                        ? other.countedAt
                        : countedAt);
    }

    public UnfetchableRows unfetchable() {
        long negative = 0;
        long withoutUpdatedAt = 0;
        for (Group group : pending()) {
            if (group.retries() < 0) {
                negative += group.count();
            } else if (group.retries() > 0) {
                withoutUpdatedAt += group.withoutUpdatedAt();
            }
        }
        return new UnfetchableRows(withoutRetryCount(), negative, withoutUpdatedAt);
    }
}
