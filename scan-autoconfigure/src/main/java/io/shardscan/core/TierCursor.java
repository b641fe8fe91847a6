package io.shardscan.core;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** One tier's keyset position and next due time within one {@link OwnedShard}. */
final class TierCursor {
    final Tier tier;
    volatile Instant nextRunAt;
    long afterId = Long.MIN_VALUE;
    /** With a due-at column, the due time of the last row read: the keyset is (due time, id). */
    @Nullable
    Instant afterDue;

    TierCursor(Tier tier, Instant now) {
        this.tier = tier;
        this.nextRunAt = now;
    }

    /** Passes of this tier that reached their end, or were cut short by a failed round. */
    volatile long passesEnded;

    /** Passes of this tier that began: one more than those ended while one is open. */
    volatile long passesBegun;

    /** Whether a pass has begun and not ended; touched only by the shard's one round at a time. */
    private boolean open;

    /**
     * Set by a trigger; cleared when a pass begins. A pass that ends with it still set began
     * before the trigger, so the tier stays due instead of resting for its interval.
     */
    volatile boolean triggered;

    /** Before a round's fetch: the first fetch of a pass begins it and answers every trigger before it. */
    void fetching() {
        if (!open) {
            open = true;
            triggered = false;
            passesBegun++;
        }
    }

    /** A full page continues at once after its last id; a short one ends the pass until the interval passes. */
    void advance(List<Row> page, int limit, Instant now) {
        if (!page.isEmpty() && page.size() >= limit) {
            afterId = page.get(page.size() - 1).id();
            afterDue = page.get(page.size() - 1).dueAt();
            nextRunAt = now;
        } else {
            afterId = Long.MIN_VALUE;
            afterDue = null;
            nextRunAt = triggered ? now : now.plus(tier.interval());
            if (triggered) {
                // a wake-up between the read above and the write: it saw the old due time and left it
                nextRunAt = now;
            }
            endPass();
        }
    }

    /** After a failed round: the pass starts over once {@code at} is reached. */
    void retryAt(Instant at) {
        afterId = Long.MIN_VALUE;
        afterDue = null;
        nextRunAt = at;
        endPass();
    }

    private void endPass() {
        if (open) {
            open = false;
            passesEnded++;
        }
    }
}
