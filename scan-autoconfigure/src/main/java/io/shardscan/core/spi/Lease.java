package io.shardscan.core.spi;

/**
 * A granted lease.
 *
 * @param shard the shard
 * @param epoch the grant's epoch, greater than every earlier grant of the shard
 */
public record Lease(int shard, long epoch) {}
