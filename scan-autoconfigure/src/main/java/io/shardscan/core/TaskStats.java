package io.shardscan.core;

import io.shardscan.core.spi.NodeCounters;
import io.shardscan.core.spi.WriteBack;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/** Running totals of one task on this node. Thread-safe. */
public final class TaskStats {

    private final AtomicLong processed = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong dead = new AtomicLong();
    private final AtomicLong inFlight = new AtomicLong();
    private final AtomicLong latchTimeouts = new AtomicLong();
    private final AtomicLong stragglers = new AtomicLong();
    private final AtomicLong handlerTimeouts = new AtomicLong();
    private final AtomicLong abandonedThreads = new AtomicLong();
    private final AtomicLong leasesLost = new AtomicLong();
    private final AtomicLong writeBacksRefused = new AtomicLong();
    private final AtomicLong fenceFailures = new AtomicLong();
    private final AtomicInteger roundsWaiting = new AtomicInteger();
    private final AtomicLong budgetWaits = new AtomicLong();
    private final AtomicLong budgetWaitNanos = new AtomicLong();
    private final AtomicLong agedRounds = new AtomicLong();
    private final AtomicReference<Instant> lastRoundAt = new AtomicReference<>();
    private final AtomicLong archived = new AtomicLong();
    private final AtomicReference<Instant> lastArchiveRunAt = new AtomicReference<>();
    private final AtomicLong probes = new AtomicLong();
    private final AtomicLong leaseTicks = new AtomicLong();
    private final AtomicLong probeHits = new AtomicLong();
    private final AtomicLong foreignFences = new AtomicLong();
    private final AtomicReference<ForeignFence> lastForeignFence = new AtomicReference<>();
    private volatile boolean storeReachable = true;

    void recorded(WriteBack batch) {
        processed.addAndGet(batch.done().size());
        failed.addAndGet(batch.failed().size());
        dead.addAndGet(batch.dead().size());
        lastRoundAt.set(batch.at());
    }

    void storeReached(boolean reached) {
        storeReachable = reached;
    }

    /**
     * Whether the last round on this node reached the database; a statement the database refused
     * reached it (see {@code StoreFailure}); {@code true} before the first.
     */
    public boolean storeReachable() {
        return storeReachable;
    }

    void stragglersDetached(int lanes) {
        stragglers.addAndGet(lanes);
    }

    /**
     * Lanes a round ended without because each ran a call to a slow endpoint; each finished that
     * call on its own and wrote it back.
     */
    public long stragglers() {
        return stragglers.get();
    }

    void latchTimedOut() {
        latchTimeouts.incrementAndGet();
    }

    void inFlight(int delta) {
        inFlight.addAndGet(delta);
    }

    /** A handler call was given up (past the handler or the round timeout, or at shutdown): its thread is left behind. */
    void abandoned() {
        abandonedThreads.incrementAndGet();
    }

    /** A handler call ran past the handler timeout and was recorded failed. */
    void handlerTimedOut() {
        handlerTimeouts.incrementAndGet();
    }

    /** A thread left behind in a hung handler returned at last. */
    void abandonedReturned() {
        abandonedThreads.decrementAndGet();
    }

    void leaseLost() {
        leasesLost.incrementAndGet();
    }

    void writeBackRefused() {
        writeBacksRefused.incrementAndGet();
    }

    void foreignFence(ForeignFence fence) {
        foreignFences.incrementAndGet();
        lastForeignFence.set(fence);
    }

    /** Shards this node was fenced off from by a node that is not a member of its coordinator (another cluster). */
    public long foreignFences() {
        return foreignFences.get();
    }

    /** The last shard fenced off by a node of another cluster; {@code null} when none was. */
    public @Nullable ForeignFence lastForeignFence() {
        return lastForeignFence.get();
    }

    void fenceFailed() {
        fenceFailures.incrementAndGet();
    }

    void roundsWaiting(int delta) {
        roundsWaiting.addAndGet(delta);
    }

    /** A round got workers of the node's budget after waiting {@code nanos}; {@code aged} when it ranked first by max-wait. */
    void budgetWaited(long nanos, boolean aged) {
        budgetWaits.incrementAndGet();
        budgetWaitNanos.addAndGet(nanos);
        if (aged) {
            agedRounds.incrementAndGet();
        }
    }

    /**
     * With {@code scan.max-workers}: rounds started that hold no worker yet (fetching, or waiting for
     * the node's budget); 0 without it.
     */
    public int roundsWaiting() {
        return roundsWaiting.get();
    }

    /** With {@code scan.max-workers}: rounds that got workers of the node's budget. */
    public long budgetWaits() {
        return budgetWaits.get();
    }

    /** With {@code scan.max-workers}: how long the rounds of {@link #budgetWaits()} waited for their workers, together. */
    public Duration budgetWaited() {
        return Duration.ofNanos(budgetWaitNanos.get());
    }

    /**
     * With {@code scan.max-workers}: rounds that got workers ahead of every priority because their
     * oldest row had been due longer than the task's {@code max-wait}.
     */
    public long agedRounds() {
        return agedRounds.get();
    }

    /** Handler calls that ran past the task's handler timeout and were recorded failed. */
    public long handlerTimeouts() {
        return handlerTimeouts.get();
    }

    /** Worker threads still stuck in a call the engine gave up on; each was interrupted and replaced. */
    public long abandonedThreads() {
        return abandonedThreads.get();
    }

    /** Leases this node lost (a refused renewal, a passed deadline, or a newer fence), each counted once. */
    public long leasesLost() {
        return leasesLost.get();
    }

    /** Write-backs the fence refused because a newer owner had the shard. */
    public long writeBacksRefused() {
        return writeBacksRefused.get();
    }

    /** Granted leases given back because the database fence could not be raised. */
    public long fenceFailures() {
        return fenceFailures.get();
    }

    /** Rows this node marked done. */
    public long processed() {
        return processed.get();
    }

    /** Failures this node wrote back that left the row pending. */
    public long failed() {
        return failed.get();
    }

    /** Rows this node marked dead. */
    public long dead() {
        return dead.get();
    }

    /** Rows whose handler runs right now. */
    public long inFlight() {
        return inFlight.get();
    }

    /** The totals a node publishes with its heartbeat, with the task's shard count and the node's weight. */
    public NodeCounters counters(int shards, int weight) {
        return new NodeCounters(processed(), failed(), dead(), inFlight(), shards, weight);
    }

    /** Rounds whose latch did not open within the task's round timeout. */
    public long latchTimeouts() {
        return latchTimeouts.get();
    }

    void archived(int rows, Instant at) {
        archived.addAndGet(rows);
        lastArchiveRunAt.set(at);
    }

    /** Finished rows this node moved to the archive table or deleted. */
    public long archived() {
        return archived.get();
    }

    /** When this node last ran an archive batch, whether or not it found rows; {@code null} before the first. */
    public Instant lastArchiveRunAt() {
        return lastArchiveRunAt.get();
    }

    /** When this node last wrote a round back, or {@code null} before the first. */
    public Instant lastRoundAt() {
        return lastRoundAt.get();
    }

    void probed(int tiersFound) {
        probes.incrementAndGet();
        probeHits.addAndGet(tiersFound);
    }

    /**
     * Statements that probed this node's idle shards together, each for every tier due within the
     * first tier's interval (see "Idle cost" in docs/guides/how-it-runs.md).
     */
    public long probes() {
        return probes.get();
    }

    /** Tiers of idle shards that a probe found a due row in, each of which then ran a round. */
    public long probeHits() {
        return probeHits.get();
    }

    void leaseTicked() {
        leaseTicks.incrementAndGet();
    }

    /**
     * Lease ticks this node's control thread ended (each read the pause, the run and the leases, and
     * claimed or handed over shards): a test waits for the next ticks, not for time, to see what a
     * tick would have changed.
     */
    public long leaseTicks() {
        return leaseTicks.get();
    }
}
