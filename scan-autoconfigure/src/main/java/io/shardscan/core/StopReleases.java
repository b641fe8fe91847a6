package io.shardscan.core;

import io.shardscan.core.spi.ShardCoordinator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The releases of a stopping task: one {@link ReleasePass}, whose calls run one after the other on
 * a thread of their own, so that the stop waits for a coordinator that does not answer no longer
 * than its deadline. Shards are queued as they are handed over (idle ones at once, busy ones when
 * their round ends); {@link #finish} queues leaving the members and waits. Thread-safe.
 */
final class StopReleases {

    private final TaskContext context;
    private final EngineSettings settings;
    private final ReleasePass pass;
    private final ExecutorService thread;
    private final Set<Integer> pending = new TreeSet<>();
    private final Set<Integer> released = new TreeSet<>();

    StopReleases(TaskContext context, ShardCoordinator coordinator, EngineSettings settings) {
        this.context = context;
        this.settings = settings;
        this.pass = new ReleasePass(context, coordinator, settings);
        this.thread = Executors.newSingleThreadExecutor(Threads.named("scan-" + context.name() + "-release-"));
    }

    /** Queues the release of {@code shard}; after {@link #finish} it is left to expire. */
    void release(OwnedShard shard) {
        synchronized (pending) {
            pending.add(shard.shard);
        }
        try {
            thread.execute(() -> {
                boolean done = pass.release(shard.shard, shard.leaseEpoch);
                synchronized (pending) {
                    pending.remove(shard.shard);
                    if (done) {
                        released.add(shard.shard);
                    }
                }
            });
        } catch (RejectedExecutionException e) {
            pass.leftToExpire(Set.of(shard.shard), "shard " + shard.shard + " was handed over after the stop ended");
        }
    }

    /** The shards whose release the coordinator answered so far, ascending; not those left to expire. */
    List<Integer> released() {
        synchronized (pending) {
            return List.copyOf(released);
        }
    }

    /**
     * Queues leaving the members, then waits until every queued call returned or {@code deadlineNanos}
     * passed; what did not return by then is left to expire. Logs one WARN when anything was left.
     *
     * @return whether every call succeeded
     */
    boolean finish(long deadlineNanos) {
        thread.execute(pass::leave);
        thread.shutdown();
        long waitNanos = deadlineNanos - context.clock().nanos();
        boolean done;
        try {
            done = thread.awaitTermination(Math.max(0, waitNanos), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            done = false;
        }
        if (!done) {
            List<Integer> left;
            synchronized (pending) {
                left = List.copyOf(pending);
            }
            pass.gaveUp(
                    left,
                    "the coordinator did not answer a release within scan.shutdown-timeout ("
                            + settings.shutdownTimeout() + ")");
            // the call waiting for a connection may give up on an interrupt; the thread is a daemon either way
            thread.shutdownNow();
        }
        pass.report();
        return !pass.failed();
    }
}
