package io.shardscan.core;

import java.time.Instant;

/**
 * One page to read: a shard, a tier's retry range, a due time and a keyset position. Immutable.
 *
 * @param shard the logical shard
 * @param minRetries the lowest retry count, inclusive
 * @param maxRetries the highest retry count, inclusive ({@link Integer#MAX_VALUE} for an open last tier)
 * @param dueBefore only rows last updated at or before this instant
 * @param afterId only rows whose id is greater
 * @param limit at most this many rows
 */
public record FetchRequest(int shard, int minRetries, int maxRetries, Instant dueBefore, long afterId, int limit) {}
