package io.shardscan.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * How much of a task is left, by tier: the store's counts folded into the task's tiers (rows past
 * the last tier count in the last one). Immutable.
 *
 * @param tiers one entry per tier, in tier order
 * @param dead dead rows
 * @param total pending rows of every tier
 * @param countedAt when the counts were taken
 */
public record Backlog(List<TierBacklog> tiers, long dead, long total, Instant countedAt) {

    public Backlog {
        tiers = List.copyOf(tiers);
    }

    /**
     * One tier's pending rows.
     *
     * @param retries the tier's retry range as configured, e.g. {@code "1-5"}
     * @param pending how many rows
     * @param oldestPendingAgeSeconds seconds since the least recently updated of them was last updated, 0 when none
     */
    public record TierBacklog(String retries, long pending, long oldestPendingAgeSeconds) {}

    /** Folds {@code counts} into the tiers of {@code task} as of {@code now}. */
    public static Backlog of(TaskDefinition task, BacklogCounts counts, Instant now) {
        List<TierBacklog> tiers = new ArrayList<>();
        long total = 0;
        List<Tier> defined = task.tiers();
        for (int i = 0; i < defined.size(); i++) {
            Tier tier = defined.get(i);
            boolean last = i == defined.size() - 1;
            long pending = 0;
            Instant oldest = null;
            for (BacklogCounts.Group group : counts.pending()) {
                if (tier.covers(group.retries()) || (last && group.retries() > tier.maxRetries())) {
                    pending += group.count();
                    Instant at = group.oldestUpdatedAt();
                    oldest = at != null && (oldest == null || at.isBefore(oldest)) ? at : oldest;
                }
            }
            long age = oldest == null
                    ? 0
                    : Math.max(0, Duration.between(oldest, now).toSeconds());
            tiers.add(new TierBacklog(tier.label(), pending, age));
            total += pending;
        }
        return new Backlog(tiers, counts.dead(), total, now);
    }
}
