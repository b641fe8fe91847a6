package io.shardscan.core;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The stop of one task on this node, after which its threads are gone; see {@link #stop}. */
final class TaskStop {

    // the stop's lines keep the runner's logger, which applications and tests filter on
    private static final System.Logger log = ScanLogging.getLogger(TaskRunner.class);

    private final TaskContext context;
    private final EngineSettings settings;
    private final LeaseKeeper leases;
    private final Dispatcher dispatcher;
    private final TaskThread control;

    /** @param control the task's control thread, which runs its lease ticks */
    TaskStop(
            TaskContext context,
            EngineSettings settings,
            LeaseKeeper leases,
            Dispatcher dispatcher,
            TaskThread control) {
        this.context = context;
        this.settings = settings;
        this.leases = leases;
        this.dispatcher = dispatcher;
        this.control = control;
    }

    /**
     * Stops claiming and dispatching, hands every shard over (a running round finishes and writes
     * back first, its lease kept by {@link StopRenewals} meanwhile, so no other node runs its rows
     * again), releases what is left and leaves, all within the shutdown timeout: a coordinator
     * that does not answer is waited for until then (at least a third of the lease TTL after the
     * rounds ended), its leases expire by themselves. Logs what it waits for and what it gave up on.
     */
    void stop() {
        long deadline = context.clock().nanos() + settings.shutdownTimeout().toNanos();
        dispatcher.stop();
        control.shutdown();
        // a tick that hangs in the coordinator is not waited for past the renew interval
        awaitTermination(control, settings.renewInterval());
        List<Integer> held = leases.owned().stream().map(s -> s.shard).sorted().toList();
        leases.handOverAll();
        List<Integer> busy = busyShards();
        if (!busy.isEmpty()) {
            log.log(
                    Level.INFO,
                    "Task " + context.name() + ": stopping, waiting up to " + settings.shutdownTimeout()
                            + " (scan.shutdown-timeout) for the rounds of shards " + busy + " with "
                            + context.stats().inFlight() + " rows in handlers");
        }
        // the control thread no longer ticks: the leases of the busy shards are kept here until their
        // rounds wrote back (each is released then), else another node would take one and run its rows again
        try (StopRenewals renewals =
                busy.isEmpty() ? null : new StopRenewals(context, leases, settings.renewInterval())) {
            while (!busyShards().isEmpty() && context.clock().nanos() - deadline < 0) {
                dispatcher.awaitQuietly(10);
            }
        }
        List<Integer> abandoned = busyShards();
        if (!abandoned.isEmpty()) {
            log.log(
                    Level.WARNING,
                    "Task " + context.name() + ": gave up after " + settings.shutdownTimeout() + " on the rounds of"
                            + " shards " + abandoned + " with "
                            + context.stats().inFlight() + " rows in handlers;"
                            + " what they did not write back stays pending and runs again on the next owner");
        }
        // rounds that used the whole timeout still leave a healthy coordinator time to release
        long releasesEnd = context.clock().nanos() + settings.callTimeout().toNanos();
        boolean releasedAll = leases.releaseAll(deadline - releasesEnd < 0 ? releasesEnd : deadline);
        // what it released, not what it held when the stop began: a shard lost meanwhile is another node's
        List<Integer> released = leases.releasedByStop();
        if (releasedAll) {
            log.log(
                    Level.INFO,
                    "Task " + context.name() + ": stopped; released shards " + released + " and left the members");
        } else {
            log.log(
                    Level.INFO,
                    "Task " + context.name() + ": stopped; of shards " + held + " it held, it released " + released
                            + ", those named in the warnings above are left to expire");
        }
        control.shutdownNow();
        dispatcher.shutdownNow();
        context.workers().stop();
        if (context.stats().abandonedThreads() > 0) {
            log.log(
                    Level.WARNING,
                    "Task " + context.name() + ": " + context.stats().abandonedThreads() + " worker threads are still"
                            + " stuck in handler calls it gave up on (past scan.tasks." + context.name()
                            + ".handler-timeout, round-timeout or the shutdown timeout); they were interrupted and"
                            + " are left behind");
        }
    }

    /** The shards whose round or stragglers still run. */
    private List<Integer> busyShards() {
        return leases.owned().stream()
                .filter(OwnedShard::roundRuns)
                .map(s -> s.shard)
                .sorted()
                .toList();
    }

    private static void awaitTermination(TaskThread executor, Duration timeout) {
        try {
            executor.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
