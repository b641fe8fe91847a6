package io.shardscan.core;

import io.shardscan.core.task.Row;
import io.shardscan.core.task.Tier;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One tier's keyset position and next due time within one {@link OwnedShard}, and the shard keys its
 * pass left behind: with per-key order, a pass never moves its position past a row it fetched and did
 * not finish (left unstarted when the lease deadline passed, when its lane was abandoned by a timeout or
 * a stop, or skipped while its key was held) and then runs a later row of that key. Such a key's rows
 * are not started again until the pass ends and the next one, from the start, reaches the row left
 * behind first. This is the one rule; the places that leave a row unfinished need not know it.
 */
final class TierCursor {
    final Tier tier;
    volatile Instant nextRunAt;
    long afterId = Long.MIN_VALUE;
    /** For a text or UUID id, the text of the last id read: the keyset is that rather than {@link #afterId}. */
    @Nullable
    String afterText;
    /** With a due-at column, the due time of the last row read: the keyset is (due time, id). */
    @Nullable
    Instant afterDue;

    TierCursor(Tier tier, Instant now) {
        this.tier = tier;
        this.nextRunAt = now;
    }

    /** The keys of rows this pass fetched and did not finish; empty once the pass ends. */
    private final Set<Long> behind = new HashSet<>();

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

    /**
     * Whether the tier's last fetch came back empty: the tier is then checked by the task's
     * {@link IdleProbe} together with the other idle shards' instead of by a fetch of its own, until
     * a probe finds a row or a trigger makes it due. A new cursor is not: a shard just claimed
     * fetches at once, as its owner before it may have left rows.
     */
    volatile boolean idle;

    /**
     * Before a round's fetch or a probe: the first fetch of a pass begins it and answers every
     * trigger before it.
     */
    synchronized void fetching() {
        if (!open) {
            open = true;
            triggered = false;
            passesBegun++;
        }
    }

    /**
     * Whether this pass left a row of {@code shardKey} behind its position: the key's rows it fetches
     * now must wait for the next pass.
     */
    synchronized boolean leftBehind(long shardKey) {
        return !behind.isEmpty() && behind.contains(shardKey);
    }

    /**
     * A full page continues at once after its last id, keeping the keys of {@code unfinished} (rows of
     * the page that did not run to an outcome) behind until the pass ends; a short one ends the pass
     * until the interval passes.
     */
    synchronized void advance(List<Row> page, int limit, Instant now, Collection<Row> unfinished) {
        if (!page.isEmpty() && page.size() >= limit) {
            Row last = page.get(page.size() - 1);
            afterId = last.id();
            afterText = last.textId();
            afterDue = last.dueAt();
            nextRunAt = now;
            unfinished.forEach(row -> behind.add(row.shardKey()));
        } else {
            afterId = Long.MIN_VALUE;
            afterText = null;
            afterDue = null;
            idle = page.isEmpty() && !triggered;
            nextRunAt = triggered ? now : now.plus(tier.interval());
            if (triggered) {
                // a wake-up between the read above and the write: it saw the old due time and left it
                nextRunAt = now;
            }
            endPass();
        }
    }

    /**
     * After the idle probe: a tier with a row stays due, its pass open, and its next round fetches;
     * one without ends its pass as an empty page does and rests for its interval, unless a trigger
     * came meanwhile.
     */
    synchronized void probed(boolean found, Instant now) {
        if (found) {
            idle = false;
            // a tier asked early (with the first tier's probe) has a due row now: fetch it now
            if (nextRunAt.isAfter(now)) {
                nextRunAt = now;
            }
            return;
        }
        advance(List.of(), 1, now, List.of());
    }

    /** Makes the tier due at once, fetched directly rather than probed. */
    synchronized void trigger(Instant now) {
        triggered = true;
        idle = false;
        nextRunAt = now;
    }

    /** Makes the tier due at once, fetched directly, without a trigger: rows it skipped are startable now. */
    synchronized void release(Instant now) {
        idle = false;
        nextRunAt = now;
    }

    /** After a failed round: the pass starts over once {@code at} is reached. */
    synchronized void retryAt(Instant at) {
        afterId = Long.MIN_VALUE;
        afterText = null;
        afterDue = null;
        nextRunAt = at;
        endPass();
    }

    private void endPass() {
        behind.clear();
        if (open) {
            open = false;
            passesEnded++;
        }
    }
}
