package io.shardscan.core;

import io.shardscan.core.spi.NodeCounters;
import io.shardscan.core.spi.ShardCoordinator;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * When one task's lease ticks run, all on its control thread: the next one a renew interval after a
 * tick that found the layout settled, four times as often while it is not, so that failover and
 * rebalancing follow a lease expiry at once. Where the coordinator answers a tick with the node's
 * renewals ({@link ShardCoordinator#renewAllAndTick}), a settled task's next tick comes with them
 * instead, costing no call of its own; a tick of its own then follows only when none came for two
 * renew intervals (a renewal that hangs), or at once when the renewals stopped answering it (their
 * call failed, or the node is no longer a member, which its own tick rejoins). A tick answered after
 * another tick ran meanwhile is dropped. Thread-safe: the renewal thread asks and answers.
 */
final class TickSchedule implements LeaseRenewals.TickRider {

    /** One lease tick of the task. */
    interface Ticker {

        /**
         * @param read what the node's renewals read for it; {@code null} when it calls the coordinator
         *     itself
         * @return whether the layout is settled
         */
        boolean tick(ShardCoordinator.@Nullable Tick read);
    }

    private final String task;
    private final TaskThread control;
    private final Duration renewInterval;
    private final Ticker ticker;
    private final BooleanSupplier running;
    private final Supplier<NodeCounters> heartbeat;

    /** Whether the last tick found the layout settled. */
    private volatile boolean settled;
    /** Whether the last answered tick came with the renewals: a tick of its own is then only a backstop. */
    private volatile boolean rides;
    /** Ticks run so far; written by the control thread only. */
    private volatile long ticks;
    /** {@link #ticks} when the renewals last asked. */
    private volatile long askedAt = -1;
    /** The tick of its own scheduled next; control thread only. */
    private TaskThread.@Nullable Delayed next;

    /**
     * @param running whether the task still runs here: once it stops, nothing is scheduled or asked
     * @param heartbeat the counters a heartbeat sent now publishes
     */
    TickSchedule(
            String task,
            TaskThread control,
            Duration renewInterval,
            Ticker ticker,
            BooleanSupplier running,
            Supplier<NodeCounters> heartbeat) {
        this.task = task;
        this.control = control;
        this.renewInterval = renewInterval;
        this.ticker = ticker;
        this.running = running;
        this.heartbeat = heartbeat;
    }

    /** Runs the first tick at once. */
    void start() {
        submit(() -> run(null));
    }

    @Override
    public String task() {
        return task;
    }

    @Override
    public @Nullable NodeCounters wantsTick() {
        if (!settled || !running.getAsBoolean()) {
            return null;
        }
        askedAt = ticks;
        return heartbeat.get();
    }

    @Override
    public void ticked(ShardCoordinator.@Nullable Tick read) {
        long asked = askedAt;
        if (read != null) {
            submit(() -> {
                if (ticks == asked) {
                    rides = true;
                    run(read);
                }
            });
        } else if (rides) {
            submit(() -> {
                if (ticks == asked) {
                    rides = false;
                    run(null);
                }
            });
        }
    }

    private void run(ShardCoordinator.@Nullable Tick read) {
        TaskThread.Delayed scheduled = next;
        if (scheduled != null) {
            scheduled.cancel();
        }
        boolean settledNow = true;
        try {
            settledNow = ticker.tick(read);
        } finally {
            ticks++;
            settled = settledNow;
            if (running.getAsBoolean() && !control.isShutdown()) {
                Duration after = !settledNow
                        ? renewInterval.dividedBy(4)
                        : rides ? renewInterval.multipliedBy(2) : renewInterval;
                try {
                    next = control.schedule(() -> run(null), after.toMillis(), TimeUnit.MILLISECONDS);
                } catch (RejectedExecutionException e) {
                    // the task stopped meanwhile
                }
            }
        }
    }

    private void submit(Runnable tick) {
        try {
            control.execute(tick);
        } catch (RejectedExecutionException e) {
            // the task stopped: its leases are released, no tick runs any more
        }
    }
}
