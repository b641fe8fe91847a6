package io.shardscan.core;

import io.shardscan.core.task.Ordering;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * One task's dispatcher thread ({@link TaskThread}): starts a round on each owned, idle, due shard while workers are
 * free, the free workers spread over the rounds one pass starts ({@link WorkerShares}). Rounds of
 * one shard never overlap. With a node-wide {@link WorkerBudget}, a round starts in
 * line for workers instead, and up to {@code workers} rounds of the task may be in line at once, so
 * a task with more due rows is in line whenever a worker comes free. Its next pass runs at
 * {@link #wakeUp} or when the next shard is due.
 */
final class Dispatcher {

    private static final long MAX_IDLE_WAIT_MILLIS = 250;

    private final TaskContext context;
    private final LeaseKeeper leases;
    private final CoordinatorHealth health;
    private final Archiver archiver;
    private final IdleProbe probe;
    private final EverywherePause pausedEverywhere;
    private final BooleanSupplier startsRounds;
    private final Object monitor = new Object();

    private final TaskRounds rounds;
    private final TaskThread thread;
    private volatile boolean running;
    /** A pass is queued on the dispatcher thread, to run at once; guarded by the monitor. */
    private boolean passQueued;
    /** The pass after the wait; guarded by the monitor. */
    private TaskThread.@Nullable Delayed nextPass;
    /** Dispatcher thread only. */
    private int rotation;

    /**
     * @param startsRounds whether this node starts rounds of the task now: not paused, and its run runs
     * @param mates the node's tasks on the same store, whose idle probes this task's joins
     */
    Dispatcher(
            TaskContext context,
            LeaseKeeper leases,
            CoordinatorHealth health,
            EverywherePause pausedEverywhere,
            BooleanSupplier startsRounds,
            TaskThread thread,
            TaskRounds rounds,
            StoreTasks mates) {
        this.context = context;
        this.leases = leases;
        this.health = health;
        this.archiver = new Archiver(context);
        this.probe = new IdleProbe(context, mates, leases::owned, () -> running && startsRounds(), this::wakeUp);
        this.pausedEverywhere = pausedEverywhere;
        this.startsRounds = startsRounds;
        this.rounds = rounds;
        this.thread = thread;
    }

    void start() {
        running = true;
        probe.join();
        wakeUp();
    }

    /** Starts no more rounds; those running go on until {@link #shutdownNow}. */
    void stop() {
        running = false;
        probe.leave();
        thread.shutdown();
        wakeUp();
    }

    /** Interrupts the rounds still running, and a pass. */
    void shutdownNow() {
        thread.shutdownNow();
        rounds.shutdownNow();
    }

    /** Whether it was started and not stopped (nor interrupted). */
    boolean isRunning() {
        return running;
    }

    private boolean startsRounds() {
        return startsRounds.getAsBoolean();
    }

    /** Runs a pass at once, unless one is queued to already; one that runs now is followed by another. */
    void wakeUp() {
        synchronized (monitor) {
            monitor.notifyAll();
            if (!running || passQueued) {
                return;
            }
            passQueued = true;
            if (nextPass != null) {
                nextPass.cancel();
                nextPass = null;
            }
        }
        runPass();
    }

    private void runPass() {
        try {
            thread.execute(this::pass);
        } catch (RejectedExecutionException e) {
            // stopped meanwhile
        }
    }

    /** One pass, then the next after {@link #waitMillis}, or at once when woken meanwhile. */
    private void pass() {
        synchronized (monitor) {
            passQueued = false;
        }
        long waitMillis = MAX_IDLE_WAIT_MILLIS;
        try {
            if (!running) {
                return;
            }
            // notices a lease tick that hangs in the coordinator, and logs it, whether or not health is read
            health.coordinatorReachable();
            if (startsRounds()) {
                dispatchDueShards();
            }
            waitMillis = waitMillis();
        } finally {
            synchronized (monitor) {
                if (running && !passQueued && nextPass == null) {
                    try {
                        nextPass = thread.schedule(this::scheduledPass, waitMillis, TimeUnit.MILLISECONDS);
                    } catch (RejectedExecutionException e) {
                        // stopped meanwhile
                    }
                }
            }
        }
    }

    private void scheduledPass() {
        synchronized (monitor) {
            nextPass = null;
        }
        pass();
    }

    private void dispatchDueShards() {
        if (!probe.tryLock()) {
            // another task's probe is asking this task's idle shards: it wakes this dispatcher when it answered
            return;
        }
        try {
            dispatchDueShards(new ArrayList<>(leases.owned()));
        } finally {
            probe.unlock();
        }
    }

    private void dispatchDueShards(List<OwnedShard> shards) {
        if (shards.isEmpty()) {
            return;
        }
        // idle shards are asked together first; those with a row are no longer idle and get a round below
        probe.run(shards);
        int start = Math.floorMod(rotation++, shards.size());
        Instant now = context.clock().now();
        List<DueRound> due = new ArrayList<>();
        for (int i = 0; i < shards.size() && running; i++) {
            OwnedShard shard = shards.get((start + i) % shards.size());
            if (!shard.idle() || !shard.canDispatch(context.clock().nanos())) {
                continue;
            }
            TierCursor tier = shard.dueTier(now);
            if (tier == null) {
                archiveIfDue(shard, now);
                continue;
            }
            if (tier.idle) {
                // came due since the probe: the next one asks it
                continue;
            }
            due.add(new DueRound(shard, tier));
        }
        if (due.isEmpty()) {
            return;
        }
        pausedEverywhere.beforeRound();
        if (!startsRounds()) {
            return;
        }
        EndpointBlacklist endpoints = context.endpoints();
        if (endpoints != null) {
            endpoints.beforeRound();
        }
        WorkerBudget budget = context.budget();
        if (budget != null) {
            startInLine(due, budget);
        } else {
            startWithShares(due);
        }
    }

    /**
     * With a node-wide budget: the rounds get in line for workers together, up to {@code workers} rounds
     * of the task at once, and share the task's free workers (see {@link WorkerBudget}).
     */
    private void startInLine(List<DueRound> due, WorkerBudget budget) {
        int room = context.definition().rounds().workers() - context.stats().roundsWaiting();
        List<DueRound> starting = new ArrayList<>();
        for (DueRound round : due) {
            if (!running || starting.size() >= room) {
                break;
            }
            if (round.shard.startRound()) {
                starting.add(round);
            }
        }
        if (starting.isEmpty()) {
            return;
        }
        List<WorkerBudget.Request> requests = budget.request(context, starting.size());
        for (int i = 0; i < starting.size(); i++) {
            start(starting.get(i), 0, requests.get(i));
        }
    }

    /** Without a budget: the task's free workers, spread over the rounds this pass starts (see {@link WorkerShares}). */
    private void startWithShares(List<DueRound> due) {
        WorkerShares shares = new WorkerShares(context.workerPermits().drainPermits(), due.size());
        for (DueRound round : due) {
            if (shares.left() == 0 || !running) {
                break;
            }
            if (round.shard.startRound()) {
                start(round, shares.next(), null);
            } else {
                shares.skip();
            }
        }
        if (shares.left() > 0) {
            context.workerPermits().release(shares.left());
        }
    }

    private void start(DueRound round, int permits, WorkerBudget.@Nullable Request request) {
        OwnedShard shard = round.shard;
        Executor lanes = work -> rounds.lanes().execute(around(shard, work));
        rounds.execute(around(shard, () -> new Round(
                        context, shard, round.tier, permits, request, lanes, left -> roundEnded(shard, left))
                .run()));
    }

    /** {@code work} for {@code shard} as the listener wraps it (see {@link ScanListener#around}). */
    private Runnable around(OwnedShard shard, Runnable work) {
        return context.listener().around(context.name(), shard.shard, shard.epoch, work);
    }

    /** The round of {@code shard} ended; with lanes it {@code left} running, they finish here as its stragglers. */
    private void roundEnded(OwnedShard shard, @Nullable RunningLanes left) {
        try {
            leases.roundEnded(shard);
        } finally {
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
        rounds.execute(around(shard, () -> {
            try {
                archiver.run(shard);
            } finally {
                leases.roundEnded(shard);
                wakeUp();
            }
        }));
    }

    /**
     * How long until a shard that can start a round is due, unless woken first. Only an idle shard
     * counts, and only while a worker is free: a round's end and a worker given back each wake it, so a
     * node whose shards all have rows waits for those instead of passing every millisecond to find
     * every shard busy or no worker free (a tenth of a core, measured while draining 500 000 rows).
     */
    private long waitMillis() {
        Instant now = context.clock().now();
        long waitMillis = MAX_IDLE_WAIT_MILLIS;
        boolean workerFree = context.budget() != null || context.workerPermits().availablePermits() > 0;
        for (OwnedShard shard : leases.owned()) {
            if (!workerFree || !shard.idle()) {
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
        return waitMillis;
    }

    /** Waits up to {@code millis} for {@link #wakeUp}, which a round's end and a worker given back each call. */
    void awaitQuietly(long millis) {
        synchronized (monitor) {
            try {
                monitor.wait(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A shard this pass starts a round on, and the tier it is due in. */
    private record DueRound(OwnedShard shard, TierCursor tier) {}
}
