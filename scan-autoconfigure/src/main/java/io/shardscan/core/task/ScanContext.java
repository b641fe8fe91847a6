package io.shardscan.core.task;

import org.jspecify.annotations.Nullable;

/**
 * Where a handler call runs: which task, which shard under which lease epoch, which attempt.
 * Handlers that write elsewhere can fence their own writes with {@link #epoch()}. Immutable.
 *
 * @param task the task name
 * @param node this node's id
 * @param shard the logical shard of the rows; for a range task ({@code mode: range}), the range's index
 *     in its run (its first id less the run's lowest id, divided by the range size), {@code -1} for a
 *     failed row run again by a requeue
 * @param epoch the lease epoch of this node on the shard; greater than any earlier owner's. For a range
 *     task, the range's epoch, issued by the database when this node opened (1) or took over the range;
 *     {@code 0} for a requeued row
 * @param attempt 1 for a row that never failed, retries + 1 otherwise (the first row's, for a batch)
 * @param endpoint the row's receiver, from the task's endpoint column; {@code null} without one or
 *     when the column is NULL
 * @param table the table the rows are of: for a sharded task ({@code tables}) the shard's table, whose data
 *     source a transactional handler's own statements must use; {@code null} for a task of one table
 */
public record ScanContext(
        String task,
        String node,
        int shard,
        long epoch,
        int attempt,
        @Nullable String endpoint,
        @Nullable String table) {

    /** A context of a task of one table. */
    public ScanContext(String task, String node, int shard, long epoch, int attempt, @Nullable String endpoint) {
        this(task, node, shard, epoch, attempt, endpoint, null);
    }

    /** A context without an endpoint. */
    public ScanContext(String task, String node, int shard, long epoch, int attempt) {
        this(task, node, shard, epoch, attempt, null);
    }
}
