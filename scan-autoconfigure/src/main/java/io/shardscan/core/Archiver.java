package io.shardscan.core;

import io.shardscan.core.task.Archive;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Archives one task's finished rows on this node, a batch at a time: a batch runs on a shard this
 * node holds while none of the shard's tiers is due (the shard's last fetches ended their passes,
 * so it only waits for an interval), holds the shard as a round does (no round of it starts until
 * the batch ends, so pending rows wait for one batch at most), is fenced by the shard's epoch like
 * a write-back, and is followed by the task's pause before the next batch of any shard. A shard
 * whose batch came back short looks again after {@link Archive#recheck()}. Thread-safe.
 */
final class Archiver {

    private static final System.Logger log = ScanLogging.getLogger(Archiver.class);
    private static final long WARN_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final TaskContext context;
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile Instant nextBatchAt = Instant.MIN;
    private volatile long warnedAtNanos;
    private volatile boolean warned;

    Archiver(TaskContext context) {
        this.context = context;
    }

    /**
     * Whether a batch may start on {@code shard} at {@code now}: the task archives, no batch of it
     * runs here, its pause has passed, and the shard has nothing due and is due to archive.
     */
    boolean due(OwnedShard shard, Instant now) {
        return context.definition().archive() != null
                && !running.get()
                && !nextBatchAt.isAfter(now)
                && shard.archiveDue(now);
    }

    /** Takes the task's one batch slot on this node; {@code false} when a batch runs. */
    boolean begin() {
        return running.compareAndSet(false, true);
    }

    /** Gives the slot back unused. */
    void cancel() {
        running.set(false);
    }

    /**
     * Runs one batch on {@code shard}, which the caller holds {@link OwnedShard.State#BUSY}, and
     * gives the slot back. A batch the fence refused loses the shard; a failed one is logged and
     * the shard tried again after the recheck interval.
     */
    void run(OwnedShard shard) {
        Archive archive = context.definition().archive();
        long started = context.clock().nanos();
        try {
            int moved = context.store().archive(context.definition(), shard.shard, shard.epoch);
            Instant now = context.clock().now();
            if (moved < 0) {
                log.log(
                        Level.WARNING,
                        "Task " + context.name() + " shard " + shard.shard + ": archive batch under fence epoch "
                                + shard.epoch + " refused, a newer owner has the shard; nothing was archived");
                shard.lose("a newer owner took it (fence epoch " + shard.epoch + " superseded)");
                context.stats().writeBackRefused(); // last: whoever sees the count finds the line and the loss
                return;
            }
            context.stats().archived(moved, now);
            context.listener()
                    .archived(
                            context.name(),
                            shard.shard,
                            moved,
                            Duration.ofNanos(context.clock().nanos() - started));
            shard.archived(moved >= archive.batch(), now, archive.recheck());
        } catch (RuntimeException e) {
            warn(shard, archive, e);
            shard.archived(false, context.clock().now(), archive.recheck());
        } finally {
            nextBatchAt = context.clock().now().plus(archive.pause());
            running.set(false);
        }
    }

    /**
     * The earliest instant a batch may start on one of {@code shards} that is idle with nothing due
     * at {@code now}; {@link Instant#MAX} when there is none, a batch runs (its end wakes the
     * dispatcher) or the task does not archive.
     */
    Instant nextDue(Collection<OwnedShard> shards, Instant now) {
        if (context.definition().archive() == null || running.get()) {
            return Instant.MAX;
        }
        Instant next = Instant.MAX;
        for (OwnedShard shard : shards) {
            if (shard.idle() && shard.dueTier(now) == null && shard.archiveAt().isBefore(next)) {
                next = shard.archiveAt();
            }
        }
        return next.isBefore(nextBatchAt) ? nextBatchAt : next;
    }

    /** A failed batch: WARN at most once a minute per task, with what failed, DEBUG otherwise. */
    private void warn(OwnedShard shard, Archive archive, RuntimeException e) {
        long now = context.clock().nanos();
        String message = "Task " + context.name() + " shard " + shard.shard + ": archive batch to " + archive.to()
                + " failed, nothing of it was archived; the shard tries again in " + archive.recheck() + ": " + e;
        if (!warned || now - warnedAtNanos >= WARN_EVERY_NANOS) {
            warned = true;
            warnedAtNanos = now;
            log.log(Level.WARNING, message, e);
        } else {
            log.log(Level.DEBUG, message);
        }
    }
}
