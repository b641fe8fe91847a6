package io.shardscan.core;

import io.shardscan.core.task.Row;
import io.shardscan.core.task.Tier;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * A shard this node holds a lease on: its life as one state machine, its two epochs, its keyset
 * cursor and due time per tier, the keys it holds back and the lanes of ended rounds that still
 * run a slow call ({@link Stragglers}). The lease fields are written by the ownership thread and
 * read by round threads; the cursors are touched only by the one round that holds the shard
 * {@link State#BUSY}.
 *
 * <pre>
 *   IDLE ⇄ BUSY                  a round starts / ends (stragglers of earlier rounds may run meanwhile)
 *   IDLE → GONE                  handed over (released) or lost while nothing runs
 *   IDLE | BUSY → RELEASING → GONE        handed over while a round or stragglers run: released when all ended
 *   IDLE | BUSY | RELEASING → LOST → GONE lost while a round or stragglers run: dropped when all ended
 * </pre>
 *
 * So a shard with stragglers is given up as one whose round still runs: a handover releases it
 * only once their outcomes are written back. A shard enters {@code LOST} (or {@code GONE} from
 * {@code IDLE} through a loss) at most once, and only that transition reports the loss.
 * Transitions hold the shard's lock; the state is read without it.
 */
final class OwnedShard {

    /** Where a shard is in its life on this node. */
    enum State {
        /** Held, no round runs (stragglers may). */
        IDLE,
        /** Held, a round runs. */
        BUSY,
        /** Assigned away while a round or stragglers run: released when they ended. */
        RELEASING,
        /** The lease is lost while a round or stragglers run: no more rows start; dropped when they ended. */
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
    private final Stragglers stragglers;
    /** Whether a round runs: it is BUSY, or went RELEASING or LOST while the round ran. Guarded by this. */
    private boolean roundRunning;

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
        this.stragglers = new Stragglers(held.ordered());
        this.losses = losses;
        this.archiveAt = now;
    }

    State state() {
        return state.get();
    }

    /** Held and no round runs ({@link State#IDLE}): a round or an archive batch may start. */
    boolean idle() {
        return state.get() == State.IDLE;
    }

    /** Held and a round runs ({@link State#BUSY}). */
    boolean busy() {
        return state.get() == State.BUSY;
    }

    /** Handed over and waiting for its round or stragglers ({@link State#RELEASING}). */
    boolean releasing() {
        return state.get() == State.RELEASING;
    }

    /** Held and staying: neither handed over nor lost ({@link State#IDLE} or {@link State#BUSY}). */
    boolean staying() {
        State now = state.get();
        return now == State.IDLE || now == State.BUSY;
    }

    /** The lease is still this node's to renew: every state before {@link State#LOST} and {@link State#GONE}. */
    boolean leaseHeld() {
        State now = state.get();
        return now == State.IDLE || now == State.BUSY || now == State.RELEASING;
    }

    /** A round or stragglers run on a shard no longer idle: {@link State#BUSY}, {@link State#RELEASING} or {@link State#LOST}. */
    boolean roundRuns() {
        State now = state.get();
        return now == State.BUSY || now == State.RELEASING || now == State.LOST;
    }

    /** Lost or gone: no longer this node's ({@link State#LOST}, {@link State#GONE}). */
    boolean ended() {
        State now = state.get();
        return now == State.LOST || now == State.GONE;
    }

    /** Released or dropped ({@link State#GONE}). */
    boolean gone() {
        return state.get() == State.GONE;
    }

    /** Whether rows of this shard may still be started at the monotonic reading {@code nanos}. */
    boolean canDispatch(long nanos) {
        return leaseHeld() && nanos - deadlineNanos < 0;
    }

    void renewed(long deadlineNanos) {
        this.deadlineNanos = deadlineNanos;
    }

    /** IDLE → BUSY: a round may start. */
    synchronized boolean startRound() {
        if (state.get() != State.IDLE) {
            return false;
        }
        roundRunning = true;
        state.set(State.BUSY);
        return true;
    }

    /**
     * A round ended: BUSY → IDLE; RELEASING or LOST → GONE unless stragglers still run.
     *
     * @return the state the shard left for GONE: {@link State#RELEASING} means release its lease now,
     *     {@link State#LOST} drop it; {@code null} when it is still held, or was gone already
     */
    @Nullable
    synchronized State endRound() {
        roundRunning = false;
        return settle();
    }

    /** The running round ends while these lanes still run: their rows straggle until {@link #stragglersEnded}. */
    synchronized void detach(List<List<Row>> lanes) {
        lanes.forEach(stragglers::add);
    }

    /**
     * Lanes a round left running ended and their outcomes are written back (or given up).
     *
     * @return as {@link #endRound}
     */
    @Nullable
    synchronized State stragglersEnded(List<List<Row>> lanes) {
        lanes.forEach(stragglers::remove);
        return settle();
    }

    private @Nullable State settle() {
        State now = state.get();
        if (now == State.BUSY && !roundRunning) {
            state.set(State.IDLE);
        } else if ((now == State.RELEASING || now == State.LOST) && !roundRunning && stragglers.size() == 0) {
            state.set(State.GONE);
            return now;
        }
        return null;
    }

    /**
     * Assigned away: a shard with nothing running is gone at once, else once its round and
     * stragglers ended.
     *
     * @return whether the lease should be released now
     */
    synchronized boolean handOver() {
        State now = state.get();
        if (now == State.IDLE && stragglers.size() == 0) {
            state.set(State.GONE);
            return true;
        }
        if (now == State.IDLE || now == State.BUSY) {
            state.set(State.RELEASING);
        }
        return false;
    }

    /**
     * The lease is lost: nothing more is started here. Reports the loss the first time only.
     *
     * @return whether the shard is gone now (nothing ran), so its owner drops it at once
     */
    boolean lose(String why) {
        boolean gone;
        synchronized (this) {
            State now = state.get();
            if (now == State.LOST || now == State.GONE) {
                return now == State.GONE;
            }
            gone = now == State.IDLE && stragglers.size() == 0;
            state.set(gone ? State.GONE : State.LOST);
        }
        losses.lost(this, why);
        return gone;
    }

    /** The rows of lanes that ended rounds left running; a round leaves them, and their keys' later rows, pending. */
    Stragglers stragglers() {
        return stragglers;
    }

    /** The keys of this shard whose later rows wait for an earlier failed one. */
    HeldKeys held() {
        return held;
    }

    /**
     * Whether the round about to run should read the held keys back from the table: some key
     * waits and they were last read {@code every} or longer ago. Only the round holding the shard
     * calls this; not while stragglers run, whose outcomes may not be written back yet.
     */
    boolean heldKeysDue(long nanos, Duration every) {
        if (held.size() == 0 || stragglers.size() > 0 || nanos - heldCheckedNanos < every.toNanos()) {
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
        cursors[0].release(now);
    }

    /** The cursor of the tier at {@code index} in tier order. */
    TierCursor cursor(int index) {
        return cursors[index];
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

    /**
     * Makes the first tier (fresh rows) due at once, for a wake-up. Coalesced: any number of wake-ups
     * before the tier's next pass begins make that one pass; one during a pass makes one more after it.
     * The flag is set before the due time is read, and a pass that ends writes its due time before it
     * reads the flag, so a wake-up racing the end of a pass is never lost.
     */
    void wake(Instant now) {
        TierCursor fresh = cursors[0];
        fresh.triggered = true;
        if (fresh.nextRunAt.isAfter(now)) {
            fresh.nextRunAt = now;
        }
    }

    /** Makes every tier due at once. */
    void trigger(Instant now) {
        for (TierCursor cursor : cursors) {
            cursor.trigger(now);
        }
    }
}
