package io.shardscan.core;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A shard this node holds a lease on, with its keyset cursor and due time per tier. The lease
 * fields are written by the ownership thread and read by round threads; the cursors are touched
 * only by the one round that holds {@link #busy}.
 */
final class OwnedShard {

    final int shard;
    final long epoch;
    private final TierCursor[] cursors;
    private final AtomicBoolean busy = new AtomicBoolean();
    private volatile long deadlineNanos;
    private volatile boolean lost;
    private volatile boolean releasing;

    OwnedShard(int shard, long epoch, long deadlineNanos, List<Tier> tiers, Instant now) {
        this.shard = shard;
        this.epoch = epoch;
        this.deadlineNanos = deadlineNanos;
        this.cursors = tiers.stream().map(t -> new TierCursor(t, now)).toArray(TierCursor[]::new);
    }

    /** Whether rows of this shard may still be dispatched at the monotonic reading {@code nanos}. */
    boolean canDispatch(long nanos) {
        return !lost && nanos - deadlineNanos < 0;
    }

    void renewed(long deadlineNanos) {
        this.deadlineNanos = deadlineNanos;
    }

    void fenceOff() {
        lost = true;
    }

    boolean isLost() {
        return lost;
    }

    void markReleasing() {
        releasing = true;
    }

    boolean isReleasing() {
        return releasing;
    }

    boolean tryBusy() {
        return busy.compareAndSet(false, true);
    }

    void idle() {
        busy.set(false);
    }

    boolean isBusy() {
        return busy.get();
    }

    /** The first tier, in order, that is due at {@code now}; fresh rows come before failed ones. */
    TierCursor dueTier(Instant now) {
        for (TierCursor cursor : cursors) {
            if (!cursor.nextRunAt.isAfter(now)) {
                return cursor;
            }
        }
        return null;
    }

    /** The earliest instant any tier is due. */
    Instant nextDue() {
        Instant next = Instant.MAX;
        for (TierCursor cursor : cursors) {
            next = cursor.nextRunAt.isBefore(next) ? cursor.nextRunAt : next;
        }
        return next;
    }

    /** Makes every tier due at once. */
    void trigger(Instant now) {
        for (TierCursor cursor : cursors) {
            cursor.nextRunAt = now;
        }
    }

    /** One tier's keyset position and next due time within this shard. */
    static final class TierCursor {
        final Tier tier;
        volatile Instant nextRunAt;
        long afterId = Long.MIN_VALUE;

        TierCursor(Tier tier, Instant now) {
            this.tier = tier;
            this.nextRunAt = now;
        }

        /** A full page continues at once after its last id; a short one ends the pass until the interval passes. */
        void advance(List<Row> page, int limit, Instant now) {
            if (!page.isEmpty() && page.size() >= limit) {
                afterId = page.get(page.size() - 1).id();
                nextRunAt = now;
            } else {
                afterId = Long.MIN_VALUE;
                nextRunAt = now.plus(tier.interval());
            }
        }
    }
}
