package io.shardscan.core;

import io.shardscan.core.spi.EndpointBans;
import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.spi.Member;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.spi.ShardCountConflict;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.task.Ordering;
import io.shardscan.core.task.TaskDefinition;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Runs one task on this node: a control thread that keeps its membership and claims and hands
 * over its shards every renew interval ({@link LeaseKeeper}; the node's {@link LeaseRenewals}
 * renews the leases), and a dispatcher thread that starts a round on each owned, idle, due
 * shard while workers are free. Rounds of one shard never overlap. With a node-wide
 * {@link WorkerBudget}, a round starts in line for workers instead, and up to {@code workers}
 * rounds of the task may be in line at once, so a task with more due rows is in line whenever a
 * worker comes free.
 */
final class TaskRunner {

    private static final System.Logger log = ScanLogging.getLogger(TaskRunner.class);
    private static final long MAX_IDLE_WAIT_MILLIS = 250;

    private final TaskContext context;
    private final EngineSettings settings;
    private final LeaseKeeper leases;
    private final Archiver archiver;
    private final IdleProbe probe;
    private final BacklogWatch backlogWatch = new BacklogWatch();
    private final RunKeeper runs;
    private final Object monitor = new Object();

    private final ScheduledExecutorService control;
    private final ExecutorService rounds;
    private final Thread dispatcher;
    private volatile boolean running;
    private volatile boolean paused;
    private final EverywherePause pausedEverywhere;
    private boolean signalled;
    private int rotation;

    TaskRunner(
            ScanEngine.ScanTask task,
            TaskStore store,
            ShardCoordinator coordinator,
            EngineSettings settings,
            ScanClock clock,
            ScanListener listener,
            EndpointBans bans,
            @Nullable WorkerBudget budget,
            LeaseRenewals renewals) {
        TaskDefinition definition = task.definition();
        String name = definition.name();
        // one thread per worker, queued like a fixed pool; TaskContext adds a thread for each one
        // abandoned in a hung handler, so the task keeps its workers
        ThreadPoolExecutor workers = new ThreadPoolExecutor(
                definition.rounds().workers(),
                definition.rounds().workers(),
                0,
                TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(),
                settings.workerThreads().factory(name, "scan-" + name + "-worker-"));
        this.context = new TaskContext(
                task,
                store,
                settings.statementTimeout(),
                clock,
                listener,
                workers,
                settings.nodeId(),
                this::wakeUp,
                () -> running && startsRounds(),
                this::countingRun,
                budget,
                bans,
                settings.endpointDown());
        this.settings = settings;
        this.leases = new LeaseKeeper(context, coordinator, settings, renewals);
        renewals.add(leases);
        this.archiver = new Archiver(context);
        this.probe = new IdleProbe(context);
        this.pausedEverywhere = new EverywherePause(context, settings.renewInterval());
        this.runs = new RunKeeper(context, this::trigger);
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

    /**
     * Stops claiming and dispatching, hands every shard over (a running round finishes and writes
     * back first, its lease kept by {@link StopRenewals} meanwhile, so no other node runs its rows
     * again), releases what is left and leaves, all within the shutdown timeout: a coordinator
     * that does not answer is waited for until then (at least a third of the lease TTL after the
     * rounds ended), its leases expire by themselves. Logs what it waits for and what it gave up on.
     */
    void stop() {
        long deadline = context.clock().nanos() + settings.shutdownTimeout().toNanos();
        running = false;
        wakeUp();
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
                awaitQuietly(10);
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
        rounds.shutdownNow();
        context.workers().shutdownNow();
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
                .filter(s -> s.state() == OwnedShard.State.BUSY
                        || s.state() == OwnedShard.State.RELEASING
                        || s.state() == OwnedShard.State.LOST)
                .map(s -> s.shard)
                .sorted()
                .toList();
    }

    /** Pauses or resumes this node only, until it restarts. */
    void pause(boolean paused) {
        this.paused = paused;
        wakeUp();
    }

    /** Pauses or resumes the task on every node: stored, so every node reads it at its next lease tick. */
    void pauseEverywhere(boolean paused) {
        pausedEverywhere.set(paused);
        wakeUp();
    }

    /** Whether this node starts no rounds: paused here or everywhere. */
    boolean isPaused() {
        return paused || pausedEverywhere.paused();
    }

    /** Whether this node starts rounds: not paused, and the task's run (if it keeps runs) runs. */
    private boolean startsRounds() {
        return !isPaused() && runs.dispatching();
    }

    private long countingRun() {
        return runs.countingRun();
    }

    /** When the task's backlog is counted again. */
    BacklogWatch backlogWatch() {
        return backlogWatch;
    }

    /** The task's run on this node. */
    RunKeeper runs() {
        return runs;
    }

    boolean isPausedEverywhere() {
        return pausedEverywhere.paused();
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

    /**
     * Wakes {@code shard} if this node holds it: its first tier is due now (see {@link OwnedShard#wake}).
     *
     * @return whether this node holds it; {@code false} also for a shard out of range
     */
    boolean wakeShard(int shard) {
        OwnedShard owned = leases.owned(shard);
        if (owned == null || owned.state() == OwnedShard.State.GONE || owned.state() == OwnedShard.State.LOST) {
            return false;
        }
        owned.wake(context.clock().now());
        wakeUp();
        return true;
    }

    /** Scans every held shard until the task is quiet; see {@link TaskDrain}. */
    long drain(long deadlineNanos) {
        if (runs.done()) {
            return 0;
        }
        return new TaskDrain(context, leases::owned, leases::settled, this::trigger).run(deadlineNanos);
    }

    /** The shards this node holds a usable lease on, ascending, with their epochs. */
    Map<Integer, Long> ownedShards() {
        return leases.usable();
    }

    int waitingKeys() {
        return leases.owned().stream().mapToInt(s -> s.held().size()).sum();
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

    @Nullable
    SlowStatement slowStatement() {
        return leases.slowStatement();
    }

    /** The task's last statement cancelled for running past its timeout, described; {@code null} when none shows. */
    @Nullable
    String statementTimedOut() {
        return context.statements().lastTimeout();
    }

    /** How many of the task's statements were cancelled for running past their timeout since start. */
    long statementTimeouts() {
        return context.statements().timeouts();
    }

    /** How long the task's longest running statement has been running; zero when none runs. */
    Duration longestStatement() {
        SlowStatement longest = context.statements().slowest(Duration.ZERO);
        return longest == null ? Duration.ZERO : longest.running();
    }

    @Nullable
    ShardCountConflict shardCountConflict() {
        return leases.shardCountConflict();
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
            // before the leases, so a node that starts or joins while the task is paused claims its shards
            // but runs nothing
            pausedEverywhere.tick();
            runs.tick();
            settled = leases.tick(running);
            if (context.endpoints() != null) {
                context.endpoints().refresh();
            }
            context.failures()
                    .overdue(context.clock().nanos())
                    .forEach((kind, count) -> log.log(
                            Level.WARNING,
                            "Task " + context.name() + ": and " + count + " more failed the same way (" + kind
                                    + ") since its last WARN line; each is logged at DEBUG"));
        } finally {
            wakeUp();
            // counted after the wake-up: a test that waits for the next ticks knows the dispatcher was woken
            context.stats().leaseTicked();
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
            // notices a lease tick that hangs in the coordinator, and logs it, whether or not health is read
            leases.coordinatorReachable();
            if (startsRounds()) {
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
        // idle shards are asked together first; those with a row are no longer idle and get a round below
        probe.run(shards);
        int start = Math.floorMod(rotation++, shards.size());
        boolean pauseRead = false;
        Instant now = context.clock().now();
        for (int i = 0; i < shards.size() && running; i++) {
            OwnedShard shard = shards.get((start + i) % shards.size());
            if (shard.state() != OwnedShard.State.IDLE
                    || !shard.canDispatch(context.clock().nanos())) {
                continue;
            }
            TierCursor due = shard.dueTier(now);
            if (due == null) {
                archiveIfDue(shard, now);
                continue;
            }
            if (due.idle) {
                // came due since the probe: the next one asks it
                continue;
            }
            if (!pauseRead) {
                pauseRead = true;
                pausedEverywhere.beforeRound();
                if (!startsRounds()) {
                    return;
                }
            }
            WorkerBudget budget = context.budget();
            if (budget != null) {
                if (context.stats().roundsWaiting()
                        >= context.definition().rounds().workers()) {
                    return;
                }
                if (shard.startRound()) {
                    WorkerBudget.Request request = budget.request(context);
                    rounds.execute(context.listener()
                            .around(context.name(), shard.shard, shard.epoch, () -> runRound(shard, due, 0, request)));
                }
                continue;
            }
            int permits = context.workerPermits().drainPermits();
            if (permits == 0) {
                return;
            }
            if (!shard.startRound()) {
                context.workerPermits().release(permits);
                continue;
            }
            rounds.execute(context.listener()
                    .around(context.name(), shard.shard, shard.epoch, () -> runRound(shard, due, permits, null)));
        }
    }

    private void runRound(OwnedShard shard, TierCursor due, int permits, WorkerBudget.@Nullable Request request) {
        RunningLanes left = null;
        try {
            left = new Round(context, shard, due, permits, request).run();
        } finally {
            leases.roundEnded(shard);
            wakeUp();
        }
        if (left != null) {
            // the shard's next rounds run meanwhile; it is not given up before these lanes wrote back
            try {
                left.finishStragglers();
            } finally {
                leases.stragglersEnded(shard, left.stragglers());
                if (context.definition().ordering() == Ordering.PER_KEY) {
                    shard.keyReleased(context.clock().now());
                }
                wakeUp();
            }
        }
    }

    /**
     * Starts an archive batch on an idle shard with nothing due, at most one of the task at a time
     * on this node; it takes no worker, but holds the shard as a round does.
     */
    private void archiveIfDue(OwnedShard shard, Instant now) {
        if (!archiver.due(shard, now) || !archiver.begin()) {
            return;
        }
        if (!shard.startRound()) {
            archiver.cancel();
            return;
        }
        rounds.execute(context.listener().around(context.name(), shard.shard, shard.epoch, () -> {
            try {
                archiver.run(shard);
            } finally {
                leases.roundEnded(shard);
                wakeUp();
            }
        }));
    }

    /**
     * Waits until a shard that can start a round is due, or a signal. Only an idle shard counts, and
     * only while a worker is free: a round's end and a worker given back each signal, so a node
     * whose shards all have rows waits for those signals instead of waking every millisecond to find
     * every shard busy or no worker free (a tenth of a core, measured while draining 500 000 rows).
     */
    private void awaitSignal() {
        Instant now = context.clock().now();
        long waitMillis = MAX_IDLE_WAIT_MILLIS;
        boolean workerFree = context.budget() != null || context.workerPermits().availablePermits() > 0;
        for (OwnedShard shard : leases.owned()) {
            if (!workerFree || shard.state() != OwnedShard.State.IDLE) {
                continue;
            }
            waitMillis = Math.min(
                    waitMillis,
                    Math.max(1, Duration.between(now, shard.nextDue()).toMillis()));
        }
        Instant archive = archiver.nextDue(leases.owned(), now);
        if (archive.isBefore(now.plusMillis(waitMillis))) {
            waitMillis = Math.max(1, Duration.between(now, archive).toMillis());
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
