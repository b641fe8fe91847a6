package io.shardscan.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A shard this node holds a lease on: its life as one state machine, its two epochs, its keyset
 * cursor and due time per tier, and the keys it holds back. The lease fields are written by the
 * ownership thread and read by round threads; the cursors are touched only by the one round that
 * holds the shard {@link State#BUSY}.
 *
 * <pre>
 *   IDLE ⇄ BUSY                  a round starts / ends
 *   IDLE → GONE                  handed over (released) or lost while no round runs
 *   BUSY → RELEASING → GONE      handed over while a round runs: released when it ends
 *   BUSY | RELEASING → LOST → GONE   lost while a round runs: dropped when it ends
 * </pre>
 *
 * A shard enters {@code LOST} (or {@code GONE} from {@code IDLE} through a loss) at most once, and
 * only that transition reports the loss.
 */
final class OwnedShard {

    /** Where a shard is in its life on this node. */
    enum State {
        /** Held, no round runs. */
        IDLE,
        /** Held, a round runs. */
        BUSY,
        /** Assigned away while a round runs: released when the round ends. */
        RELEASING,
        /** The lease is lost while a round runs: no more rows start; dropped when the round ends. */
        LOST,
        /** Released or dropped: no longer this node's. */
        GONE
    }

    /** Told once when a shard's lease is lost, with why. */
    @FunctionalInterface
    interface LossReport {
        void lost(OwnedShard shard, String why);
    }

    final int shard;
    /** The coordinator's lease id: what renewals and the release name. */
    final long leaseEpoch;
    /** The epoch the database fence issued for this ownership: what every write-back is checked against. */
    final long epoch;

    private final AtomicReference<State> state = new AtomicReference<>(State.IDLE);
    private final LossReport losses;
    private final TierCursor[] cursors;
    private final HeldKeys held;
    private volatile long deadlineNanos;
    private long heldCheckedNanos;
    /** When this shard may run its next archive batch; written by the batch that holds it. */
    private volatile Instant archiveAt;

    OwnedShard(
            int shard,
            long leaseEpoch,
            long epoch,
            long deadlineNanos,
            List<Tier> tiers,
            HeldKeys held,
            Instant now,
            LossReport losses) {
        this.shard = shard;
        this.leaseEpoch = leaseEpoch;
        this.epoch = epoch;
        this.deadlineNanos = deadlineNanos;
        // the held keys were read at the claim, which the first deadline follows
        this.heldCheckedNanos = deadlineNanos;
        this.cursors = tiers.stream().map(t -> new TierCursor(t, now)).toArray(TierCursor[]::new);
        this.held = held;
        this.losses = losses;
        this.archiveAt = now;
    }

    State state() {
        return state.get();
    }

    /** Whether rows of this shard may still be started at the monotonic reading {@code nanos}. */
    boolean canDispatch(long nanos) {
        State now = state.get();
        return (now == State.BUSY || now == State.RELEASING || now == State.IDLE) && nanos - deadlineNanos < 0;
    }

    void renewed(long deadlineNanos) {
        this.deadlineNanos = deadlineNanos;
    }

    /** IDLE → BUSY: a round may start. */
    boolean startRound() {
        return state.compareAndSet(State.IDLE, State.BUSY);
    }

    /**
     * A round ended: BUSY → IDLE, RELEASING or LOST → GONE.
     *
     * @return the state the shard left: {@link State#RELEASING} means release its lease now
     */
    State endRound() {
        while (true) {
            State now = state.get();
            State next = now == State.BUSY ? State.IDLE : State.GONE;
            if (now == State.IDLE || now == State.GONE) {
                return now;
            }
            if (state.compareAndSet(now, next)) {
                return now;
            }
        }
    }

    /**
     * Assigned away: an idle shard is gone at once, a busy one once its round ends.
     *
     * @return whether the lease should be released now
     */
    boolean handOver() {
        if (state.compareAndSet(State.IDLE, State.GONE)) {
            return true;
        }
        state.compareAndSet(State.BUSY, State.RELEASING);
        return false;
    }

    /**
     * The lease is lost: nothing more is started here. Reports the loss the first time only.
     *
     * @return whether the shard is gone now (it was idle), so its owner drops it at once
     */
    boolean lose(String why) {
        while (true) {
            State now = state.get();
            if (now == State.LOST || now == State.GONE) {
                return now == State.GONE;
            }
            State next = now == State.IDLE ? State.GONE : State.LOST;
            if (state.compareAndSet(now, next)) {
                losses.lost(this, why);
                return next == State.GONE;
            }
        }
    }

    /** The keys of this shard whose later rows wait for an earlier failed one. */
    HeldKeys held() {
        return held;
    }

    /**
     * Whether the round about to run should read the held keys back from the table: some key
     * waits and they were last read {@code every} or longer ago. Only the round holding the shard
     * calls this, when every earlier outcome of the shard is written back.
     */
    boolean heldKeysDue(long nanos, Duration every) {
        if (held.size() == 0 || nanos - heldCheckedNanos < every.toNanos()) {
            return false;
        }
        heldCheckedNanos = nanos;
        return true;
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

    /**
     * A key no longer waits: its rows that waited are fresh rows of the first tier, due now rather
     * than after that tier's interval.
     */
    void keyReleased(Instant now) {
        cursors[0].nextRunAt = now;
    }

    /** How many passes each tier has ended, in tier order. */
    long[] passesEnded() {
        long[] passes = new long[cursors.length];
        for (int i = 0; i < cursors.length; i++) {
            passes[i] = cursors[i].passesEnded;
        }
        return passes;
    }

    /**
     * How many passes each tier has begun, in tier order: a pass begun later has the next number,
     * and has ended once {@link #passesEnded()} reaches it.
     */
    long[] passesBegun() {
        long[] passes = new long[cursors.length];
        for (int i = 0; i < cursors.length; i++) {
            passes[i] = cursors[i].passesBegun;
        }
        return passes;
    }

    /**
     * Whether the shard is idle enough to archive at {@code now}: no tier is due (each tier's last
     * fetch ended its pass, with a short or empty page, and rests for its interval) and its next
     * archive batch is due. Not "the last fetch came back empty": a shard that receives a row per
     * interval would then never archive.
     */
    boolean archiveDue(Instant now) {
        return dueTier(now) == null && !archiveAt.isAfter(now);
    }

    /** When the shard's next archive batch is due, whatever its tiers. */
    Instant archiveAt() {
        return archiveAt;
    }

    /** After an archive batch: a full one is followed by the next, a short one rests for {@code recheck}. */
    void archived(boolean full, Instant now, Duration recheck) {
        archiveAt = full ? now : now.plus(recheck);
    }

    /** Makes every tier due at once. */
    void trigger(Instant now) {
        for (TierCursor cursor : cursors) {
            cursor.triggered = true;
            cursor.nextRunAt = now;
        }
    }
}
