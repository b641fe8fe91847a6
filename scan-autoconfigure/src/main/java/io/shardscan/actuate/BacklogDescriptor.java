package io.shardscan.actuate;

import io.shardscan.core.Backlog;
import java.time.Instant;
import java.util.List;

/**
 * A task's backlog as last counted in the background. Immutable.
 *
 * @param tiers pending rows per tier, in tier order
 * @param dead dead rows
 * @param total pending rows of every tier
 * @param countedAt when the counts were taken
 */
public record BacklogDescriptor(List<TierDescriptor> tiers, long dead, long total, Instant countedAt) {

    public BacklogDescriptor {
        tiers = List.copyOf(tiers);
    }

    static BacklogDescriptor of(Backlog backlog) {
        List<TierDescriptor> tiers = backlog.tiers().stream()
                .map(t -> new TierDescriptor(t.retries(), t.pending(), t.oldestPendingAgeSeconds()))
                .toList();
        return new BacklogDescriptor(tiers, backlog.dead(), backlog.total(), backlog.countedAt());
    }

    /**
     * One tier's pending rows.
     *
     * @param retries the tier's retry range, e.g. {@code "1-5"}
     * @param pending how many rows
     * @param oldestPendingAgeSeconds seconds since the least recently updated of them was updated, 0 when none
     */
    public record TierDescriptor(String retries, long pending, long oldestPendingAgeSeconds) {}
}
