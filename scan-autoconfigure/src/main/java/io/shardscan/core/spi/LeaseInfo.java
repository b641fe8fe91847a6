package io.shardscan.core.spi;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A shard's lease as the coordinator sees it.
 *
 * @param shard the shard
 * @param owner the node holding it, or {@code null} when free or expired
 * @param epoch the last granted epoch
 * @param expiresAt when the lease runs out, or {@code null} when free
 */
public record LeaseInfo(
        int shard,
        @Nullable String owner,
        long epoch,
        @Nullable Instant expiresAt) {}
