package io.shardscan.actuate;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.shardscan.core.spi.LeaseInfo;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * One shard's lease as this node last saw it. Immutable. {@code owner} and {@code leaseExpiresAt}
 * are written as {@code null} when the shard is free, although the actuator's JSON leaves other nulls
 * out.
 *
 * @param shard the shard
 * @param owner the node holding it, or {@code null} when free
 * @param epoch the last granted epoch, 0 when never granted
 * @param leaseExpiresAt when the lease runs out, or {@code null} when free
 */
public record ShardDescriptor(
        int shard,
        @JsonInclude(JsonInclude.Include.ALWAYS) @Nullable String owner,
        long epoch,
        @JsonInclude(JsonInclude.Include.ALWAYS) @Nullable Instant leaseExpiresAt) {

    static ShardDescriptor of(LeaseInfo lease) {
        return new ShardDescriptor(lease.shard(), lease.owner(), lease.epoch(), lease.expiresAt());
    }

    static ShardDescriptor free(int shard) {
        return new ShardDescriptor(shard, null, 0, null);
    }
}
