package io.shardscan.core;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Whether one task is paused on every node, as this node last read it from the store. It is read
 * again only when a decision needs it fresh: before a round starts, when the last read is a renew
 * interval old (so a busy node reads it about as often as it renews its leases, and no round
 * starts on a pause older than that), at a lease tick while the task is paused (so a resume is
 * seen within a tick), and otherwise every {@link #QUIET_TICKS} renew intervals, so a node with
 * nothing to do reads it once in a while rather than at every tick. The node's tasks on one store
 * ({@link StoreTasks}) read their pauses together: a read takes along, in the same statement, every
 * other task's pause read a renew interval ago or earlier, so an idle node reads the pauses of all
 * its tasks in about one statement per {@link #QUIET_TICKS} renew intervals, not one per task. Reads
 * and this node's own writes hold the task's lock, so a value read before this node's write cannot
 * overwrite it. While the store cannot be read the last value holds. Thread-safe.
 */
final class EverywherePause {

    /** How many renew intervals an idle node goes without reading the pause. */
    static final int QUIET_TICKS = 5;

    private static final System.Logger log = ScanLogging.getLogger(EverywherePause.class);

    private final TaskContext context;
    private final Duration renewInterval;
    private final StoreTasks mates;
    /** Held by a read of the pause (this task's, or another's that reads it along) and by this node's write. */
    private final ReentrantLock lock = new ReentrantLock();

    private volatile boolean paused;
    private volatile boolean read;
    private volatile long readAtNanos;

    /** @param mates the node's tasks on the same store: a read of one's pause reads the others' along */
    EverywherePause(TaskContext context, Duration renewInterval, StoreTasks mates) {
        this.context = context;
        this.renewInterval = renewInterval;
        this.mates = mates;
    }

    /** Whether the task is paused everywhere, as last read or set. */
    boolean paused() {
        return paused;
    }

    /** Pauses or resumes the task on every node: stored, so every node reads it. */
    void set(boolean paused) {
        lock.lock();
        try {
            context.store()
                    .control()
                    .pauseEverywhere(
                            context.definition(),
                            paused,
                            context.nodeId(),
                            context.clock().now());
            this.paused = paused;
            readNow();
        } finally {
            lock.unlock();
        }
    }

    /** At a lease tick: reads it while the task is paused, else once every {@link #QUIET_TICKS} renew intervals. */
    void tick() {
        refresh(paused ? Duration.ZERO : renewInterval.multipliedBy(QUIET_TICKS));
    }

    /** Before a round starts: reads it when the last read is a renew interval old or older. */
    void beforeRound() {
        refresh(renewInterval);
    }

    /** Joins the tasks whose pauses are read together: the task started. */
    void start() {
        mates.join(this);
    }

    /** Leaves the tasks whose pauses are read together: the task stopped. */
    void stop() {
        mates.leave(this);
    }

    private boolean olderThan(Duration maxAge) {
        return !read || context.clock().nanos() - readAtNanos >= maxAge.toNanos();
    }

    /**
     * Reads the pause when the last read is {@code maxAge} old, and in the same statement that of each
     * other task of the store read a renew interval ago or earlier, whose own next read it spares.
     */
    private void refresh(Duration maxAge) {
        if (!olderThan(maxAge)) {
            return;
        }
        List<EverywherePause> riders = new ArrayList<>();
        // one read at a time among the store's tasks, whose ticks often come together: the next one finds
        // its pause read along, and sends nothing
        mates.pauseReading().lock();
        lock.lock();
        try {
            if (!olderThan(maxAge)) {
                return;
            }
            for (EverywherePause mate : mates.pauses(this)) {
                if (mate.olderThan(renewInterval) && mate.lock.tryLock()) {
                    riders.add(mate);
                }
            }
            if (riders.isEmpty()) {
                paused = context.store().control().pausedEverywhere(context.definition());
                readNow();
                return;
            }
            List<EverywherePause> all = new ArrayList<>(riders);
            all.add(0, this);
            Set<String> read = context.store()
                    .control()
                    .pausedEverywhere(all.stream()
                            .map(pause -> pause.context.definition())
                            .toList());
            for (EverywherePause pause : all) {
                pause.paused = read.contains(pause.context.name());
                pause.readNow();
            }
        } catch (RuntimeException e) {
            log.log(
                    Level.DEBUG,
                    () -> "Task " + context.name() + ": cannot read whether it is paused everywhere; keeping " + paused
                            + ": " + e);
        } finally {
            riders.forEach(mate -> mate.lock.unlock());
            lock.unlock();
            mates.pauseReading().unlock();
        }
    }

    private void readNow() {
        readAtNanos = context.clock().nanos();
        read = true;
    }
}
