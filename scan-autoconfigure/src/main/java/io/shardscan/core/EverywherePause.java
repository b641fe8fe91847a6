package io.shardscan.core;

import java.lang.System.Logger.Level;
import java.time.Duration;

/**
 * Whether one task is paused on every node, as this node last read it from the store. It is read
 * again only when a decision needs it fresh: before a round starts, when the last read is a renew
 * interval old (so a busy node reads it about as often as it renews its leases, and no round
 * starts on a pause older than that), at a lease tick while the task is paused (so a resume is
 * seen within a tick), and otherwise every {@link #QUIET_TICKS} renew intervals, so a node with
 * nothing to do reads it once in a while rather than at every tick. Reads and this node's own
 * writes hold one lock, so a value read before this node's write cannot overwrite it. While the
 * store cannot be read the last value holds. Thread-safe.
 */
final class EverywherePause {

    /** How many renew intervals an idle node goes without reading the pause. */
    static final int QUIET_TICKS = 5;

    private static final System.Logger log = ScanLogging.getLogger(EverywherePause.class);

    private final TaskContext context;
    private final Duration renewInterval;
    private final Object lock = new Object();
    private volatile boolean paused;
    private volatile boolean read;
    private volatile long readAtNanos;

    EverywherePause(TaskContext context, Duration renewInterval) {
        this.context = context;
        this.renewInterval = renewInterval;
    }

    /** Whether the task is paused everywhere, as last read or set. */
    boolean paused() {
        return paused;
    }

    /** Pauses or resumes the task on every node: stored, so every node reads it. */
    void set(boolean paused) {
        synchronized (lock) {
            context.store()
                    .control()
                    .pauseEverywhere(
                            context.definition(),
                            paused,
                            context.nodeId(),
                            context.clock().now());
            this.paused = paused;
            readNow();
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

    private void refresh(Duration maxAge) {
        if (read && context.clock().nanos() - readAtNanos < maxAge.toNanos()) {
            return;
        }
        try {
            synchronized (lock) {
                paused = context.store().control().pausedEverywhere(context.definition());
                readNow();
            }
        } catch (RuntimeException e) {
            log.log(
                    Level.DEBUG,
                    () -> "Task " + context.name() + ": cannot read whether it is paused everywhere; keeping " + paused
                            + ": " + e);
        }
    }

    private void readNow() {
        readAtNanos = context.clock().nanos();
        read = true;
    }
}
