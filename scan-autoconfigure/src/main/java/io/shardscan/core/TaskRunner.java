package io.shardscan.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Runs one task on this node: a control thread that keeps its leases every renew interval
 * ({@link LeaseKeeper}), and a dispatcher thread that starts a round on each owned, idle, due
 * shard while workers are free. Rounds of one shard never overlap.
 */
final class TaskRunner {

    private static final System.Logger log = System.getLogger(TaskRunner.class.getName());
    private static final long MAX_IDLE_WAIT_MILLIS = 250;

    private final TaskContext context;
    private final EngineSettings settings;
    private final LeaseKeeper leases;
    private final Object monitor = new Object();
    private final ScheduledExecutorService control;
    private final ExecutorService rounds;
    private final Thread dispatcher;
    private volatile boolean running;
    private volatile boolean paused;
    private boolean signalled;
    private int rotation;

    TaskRunner(
            ScanEngine.ScanTask task,
            TaskStore store,
            ShardCoordinator coordinator,
            EngineSettings settings,
            ScanClock clock,
            ScanListener listener) {
        TaskDefinition definition = task.definition();
        String name = definition.name();
        ExecutorService workers =
                Executors.newFixedThreadPool(definition.workers(), Threads.named("scan-" + name + "-worker-"));
        this.context = new TaskContext(task, store, clock, listener, workers, settings.nodeId(), this::wakeUp);
        this.settings = settings;
        this.leases = new LeaseKeeper(context, coordinator, settings);
        ScheduledThreadPoolExecutor control =
                new ScheduledThreadPoolExecutor(1, Threads.named("scan-" + name + "-lease-"));
        // a tick scheduled for later must not run after stop() released the leases
        control.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.control = control;
        this.rounds = Executors.newCachedThreadPool(Threads.named("scan-" + name + "-round-"));
        this.dispatcher = Threads.named("scan-" + name + "-dispatch-").newThread(this::dispatchLoop);
    }

    TaskContext context() {
        return context;
    }

    void start() {
        running = true;
        control.execute(this::tick);
        dispatcher.start();
    }

    /** Stops claiming and dispatching, waits for running rounds, releases every lease and leaves. */
    void stop() {
        running = false;
        wakeUp();
        control.shutdown();
        awaitTermination(control, settings.renewInterval());
        long deadline = context.clock().nanos() + settings.shutdownTimeout().toNanos();
        for (OwnedShard shard : leases.owned()) {
            while (!shard.tryBusy() && context.clock().nanos() - deadline < 0) {
                awaitQuietly(10);
            }
        }
        leases.releaseAll();
        rounds.shutdownNow();
        context.workers().shutdownNow();
    }

    void pause(boolean paused) {
        this.paused = paused;
        wakeUp();
    }

    boolean isPaused() {
        return paused;
    }

    boolean isRunning() {
        return running;
    }

    /** Makes every tier of every owned shard due now. */
    void trigger() {
        Instant now = context.clock().now();
        leases.owned().forEach(s -> s.trigger(now));
        wakeUp();
    }

    /** The shards this node holds a usable lease on, ascending, with their epochs. */
    Map<Integer, Long> ownedShards() {
        return leases.usable();
    }

    List<Member> members() {
        return leases.members();
    }

    List<LeaseInfo> leases() {
        return leases.leases();
    }

    String coordinatorKind() {
        return leases.coordinatorKind();
    }

    boolean coordinatorReachable() {
        return leases.coordinatorReachable();
    }

    void wakeUp() {
        synchronized (monitor) {
            signalled = true;
            monitor.notifyAll();
        }
    }

    /**
     * One lease tick, then the next: after the renew interval while the layout is settled, four
     * times as often while it is not (a shard assigned here is not held yet, one is being handed
     * over, or a member fell silent), so that failover and rebalancing follow a lease expiry at
     * once instead of up to a renew interval later.
     */
    private void tick() {
        boolean settled = true;
        try {
            settled = leases.tick(running);
        } finally {
            wakeUp();
            if (running && !control.isShutdown()) {
                Duration next = settled
                        ? settings.renewInterval()
                        : settings.renewInterval().dividedBy(4);
                control.schedule(this::tick, next.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }

    private void dispatchLoop() {
        while (running) {
            if (!paused) {
                dispatchDueShards();
            }
            awaitSignal();
        }
    }

    private void dispatchDueShards() {
        List<OwnedShard> shards = new ArrayList<>(leases.owned());
        if (shards.isEmpty()) {
            return;
        }
        int start = Math.floorMod(rotation++, shards.size());
        Instant now = context.clock().now();
        for (int i = 0; i < shards.size() && running; i++) {
            OwnedShard shard = shards.get((start + i) % shards.size());
            if (shard.isBusy()
                    || shard.isReleasing()
                    || !shard.canDispatch(context.clock().nanos())) {
                continue;
            }
            OwnedShard.TierCursor due = shard.dueTier(now);
            if (due == null) {
                continue;
            }
            int permits = context.workerPermits().drainPermits();
            if (permits == 0) {
                return;
            }
            if (!shard.tryBusy()) {
                context.workerPermits().release(permits);
                continue;
            }
            rounds.execute(context.listener()
                    .around(context.name(), shard.shard, shard.epoch, () -> runRound(shard, due, permits)));
        }
    }

    private void runRound(OwnedShard shard, OwnedShard.TierCursor due, int permits) {
        try {
            new Round(context, shard, due, permits).run();
        } finally {
            leases.roundEnded(shard);
            wakeUp();
        }
    }

    private void awaitSignal() {
        Instant now = context.clock().now();
        long waitMillis = MAX_IDLE_WAIT_MILLIS;
        for (OwnedShard shard : leases.owned()) {
            waitMillis = Math.min(
                    waitMillis,
                    Math.max(1, Duration.between(now, shard.nextDue()).toMillis()));
        }
        awaitQuietly(waitMillis);
    }

    private void awaitQuietly(long millis) {
        synchronized (monitor) {
            try {
                if (!signalled) {
                    monitor.wait(millis);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                running = false;
            } finally {
                signalled = false;
            }
        }
    }

    private static void awaitTermination(ExecutorService executor, Duration timeout) {
        try {
            executor.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
