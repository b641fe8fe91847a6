package io.shardscan.core;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The lease renewals of a stopping task while it waits for its running rounds: at once and then every
 * renew interval, {@link LeaseKeeper#renewHandedOver} keeps the leases of the shards whose round or
 * stragglers still run, so that no other node takes such a shard, and runs its rows again, before
 * their outcomes are written back and the stop released it. On a thread of its own, so a lease tick
 * that hangs in the coordinator does not hold them up. {@link #close} ends them, interrupting a
 * renewal that waits for the coordinator. Thread-safe.
 */
final class StopRenewals implements AutoCloseable {

    private static final System.Logger log = ScanLogging.getLogger(StopRenewals.class);

    private final TaskContext context;
    private final LeaseKeeper leases;
    private final ScheduledExecutorService thread;

    StopRenewals(TaskContext context, LeaseKeeper leases, Duration every) {
        this.context = context;
        this.leases = leases;
        this.thread =
                Executors.newSingleThreadScheduledExecutor(Threads.named("scan-" + context.name() + "-stop-renew-"));
        thread.scheduleWithFixedDelay(this::renew, 0, every.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void renew() {
        try {
            leases.renewHandedOver();
        } catch (RuntimeException e) {
            // a failure must not end the renewals: the scheduler runs a task that threw no more
            log.log(Level.WARNING, "Task " + context.name() + ": a lease renewal during the stop failed: " + e);
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
