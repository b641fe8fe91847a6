package io.shardscan.core;

/**
 * Where a handler call runs: which task, which shard under which lease epoch, which attempt.
 * Handlers that write elsewhere can fence their own writes with {@link #epoch()}. Immutable.
 *
 * @param task the task name
 * @param node this node's id
 * @param shard the logical shard of the rows
 * @param epoch the lease epoch of this node on the shard; greater than any earlier owner's
 * @param attempt 1 for a row that never failed, retries + 1 otherwise (the first row's, for a batch)
 */
public record ScanContext(String task, String node, int shard, long epoch, int attempt) {}
