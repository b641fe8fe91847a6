package io.shardscan.core;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runs one task on this node: a control thread that heartbeats, renews, releases and claims
 * leases every renew interval, and a dispatcher thread that starts a round on each owned, idle,
 * due shard while workers are free. Rounds of one shard never overlap.
 */
final class TaskRunner {

    private static final System.Logger log = System.getLogger(TaskRunner.class.getName());
    private static final long MAX_IDLE_WAIT_MILLIS = 250;

    private final TaskContext context;
    private final ShardCoordinator coordinator;
    private final EngineSettings settings;
    private final Map<Integer, OwnedShard> owned = new ConcurrentHashMap<>();
    private final Object monitor = new Object();
    private final ScheduledExecutorService control;
    private final ExecutorService rounds;
    private final Thread dispatcher;
    private volatile boolean running;
    private volatile boolean paused;
    private volatile List<Member> members = List.of();
    private volatile boolean coordinatorReachable = true;
    private boolean signalled;
    private int rotation;

    TaskRunner(
            TaskDefinition definition,
            TaskHandler handler,
            TaskStore store,
            ShardCoordinator coordinator,
            EngineSettings settings,
            ScanClock clock,
            ScanListener listener) {
        String name = definition.name();
        ExecutorService workers =
                Executors.newFixedThreadPool(definition.workers(), Threads.named("scan-" + name + "-worker-"));
        this.context =
                new TaskContext(definition, handler, store, clock, listener, workers, settings.nodeId(), this::wakeUp);
        this.coordinator = coordinator;
        this.settings = settings;
        this.control = Executors.newSingleThreadScheduledExecutor(Threads.named("scan-" + name + "-lease-"));
        this.rounds = Executors.newCachedThreadPool(Threads.named("scan-" + name + "-round-"));
        this.dispatcher = Threads.named("scan-" + name + "-dispatch-").newThread(this::dispatchLoop);
    }

    TaskContext context() {
        return context;
    }

    void start() {
        running = true;
        control.scheduleWithFixedDelay(this::tick, 0, settings.renewInterval().toMillis(), TimeUnit.MILLISECONDS);
        dispatcher.start();
    }

    /** Stops claiming and dispatching, waits for running rounds, releases every lease and leaves. */
    void stop() {
        running = false;
        wakeUp();
        control.shutdown();
        awaitTermination(control, settings.renewInterval());
        long deadline = context.clock().nanos() + settings.shutdownTimeout().toNanos();
        for (OwnedShard shard : owned.values()) {
            while (!shard.tryBusy() && context.clock().nanos() - deadline < 0) {
                awaitQuietly(10);
            }
        }
        try {
            owned.values().forEach(s -> coordinator.release(context.name(), s.shard, settings.nodeId(), s.epoch));
            coordinator.leave(context.name(), settings.nodeId());
        } catch (RuntimeException e) {
            log.log(
                    Level.WARNING,
                    "Task " + context.name() + ": could not release leases on shutdown; they expire"
                            + " within scan.lease-ttl (" + settings.leaseTtl() + "): " + e);
        }
        owned.clear();
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
        owned.values().forEach(s -> s.trigger(now));
        wakeUp();
    }

    /** The shards this node holds a usable lease on, ascending, with their epochs. */
    Map<Integer, Long> ownedShards() {
        Map<Integer, Long> shards = new java.util.TreeMap<>();
        long now = context.clock().nanos();
        owned.values().stream().filter(s -> s.canDispatch(now)).forEach(s -> shards.put(s.shard, s.epoch));
        return shards;
    }

    List<Member> members() {
        return members;
    }

    boolean coordinatorReachable() {
        return coordinatorReachable;
    }

    void wakeUp() {
        synchronized (monitor) {
            signalled = true;
            monitor.notifyAll();
        }
    }

    private void tick() {
        try {
            List<Member> live = coordinator.heartbeat(context.name(), settings.nodeId(), settings.memberTimeout());
            members = live;
            renew();
            Set<Integer> target = new HashSet<>(coordinator.assign(settings.nodeId(), live, currentOwners()));
            owned.values().stream().filter(s -> !target.contains(s.shard)).forEach(this::handOver);
            if (running) {
                target.stream()
                        .filter(shard -> !owned.containsKey(shard))
                        .sorted()
                        .forEach(this::claim);
            }
            reachable(true, null);
        } catch (RuntimeException e) {
            reachable(false, e);
        }
        expireOverdue();
        wakeUp();
    }

    private String[] currentOwners() {
        String[] owners = new String[context.definition().shards()];
        for (LeaseInfo lease : coordinator.leases(context.name())) {
            if (lease.shard() >= 0 && lease.shard() < owners.length) {
                owners[lease.shard()] = lease.owner();
            }
        }
        return owners;
    }

    private void renew() {
        Map<Integer, Long> epochs = new HashMap<>();
        owned.values().stream().filter(s -> !s.isLost()).forEach(s -> epochs.put(s.shard, s.epoch));
        if (epochs.isEmpty()) {
            return;
        }
        long sentAt = context.clock().nanos();
        Set<Integer> renewed =
                new HashSet<>(coordinator.renew(context.name(), settings.nodeId(), epochs, settings.leaseTtl()));
        for (OwnedShard shard : owned.values()) {
            if (renewed.contains(shard.shard)) {
                shard.renewed(settings.deadlineNanos(sentAt));
            } else {
                lose(shard, "its lease renewal was refused");
            }
        }
    }

    private void claim(int shard) {
        Optional<Lease> lease = coordinator.tryAcquire(context.name(), shard, settings.nodeId(), settings.leaseTtl());
        if (lease.isEmpty()) {
            return;
        }
        long grantedAt = context.clock().nanos();
        Lease granted = lease.get();
        if (!context.store().fence(context.definition(), shard, granted.epoch())) {
            coordinator.release(context.name(), shard, settings.nodeId(), granted.epoch());
            return;
        }
        owned.put(
                shard,
                new OwnedShard(
                        shard,
                        granted.epoch(),
                        settings.deadlineNanos(grantedAt),
                        context.definition().tiers(),
                        context.clock().now()));
        log.log(Level.DEBUG, () -> "Task " + context.name() + ": claimed shard " + shard + " epoch " + granted.epoch());
    }

    /** Two-phase handover: a shard assigned away is released once its running round has written back. */
    private void handOver(OwnedShard shard) {
        shard.markReleasing();
        if (shard.tryBusy()) {
            releaseNow(shard);
        }
    }

    private void releaseNow(OwnedShard shard) {
        owned.remove(shard.shard, shard);
        if (!shard.isLost()) {
            coordinator.release(context.name(), shard.shard, settings.nodeId(), shard.epoch);
        }
    }

    private void expireOverdue() {
        long now = context.clock().nanos();
        for (OwnedShard shard : owned.values()) {
            if (!shard.isLost() && !shard.canDispatch(now)) {
                lose(shard, "its lease deadline passed without a renewal");
            }
        }
    }

    private void lose(OwnedShard shard, String why) {
        shard.fenceOff();
        context.listener().leaseLost(context.name(), shard.shard);
        log.log(
                Level.WARNING,
                "Task " + context.name() + ": shard " + shard.shard + " fenced off, " + why
                        + "; no more of its rows are dispatched here");
        if (shard.tryBusy()) {
            owned.remove(shard.shard, shard);
        }
    }

    private void reachable(boolean reachable, RuntimeException cause) {
        if (reachable != coordinatorReachable) {
            if (reachable) {
                log.log(Level.INFO, "Task " + context.name() + ": coordinator reachable again");
            } else {
                log.log(
                        Level.WARNING,
                        "Task " + context.name() + ": coordinator unreachable, leases lapse and"
                                + " this node stops dispatching until it returns: " + cause);
            }
        }
        coordinatorReachable = reachable;
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
        List<OwnedShard> shards = new ArrayList<>(owned.values());
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
            rounds.execute(() -> runRound(shard, due, permits));
        }
    }

    private void runRound(OwnedShard shard, OwnedShard.TierCursor due, int permits) {
        try {
            new Round(context, shard, due, permits).run();
        } finally {
            if (shard.isReleasing() || shard.isLost()) {
                try {
                    releaseNow(shard);
                } catch (RuntimeException e) {
                    log.log(
                            Level.WARNING,
                            "Task " + context.name() + ": release of shard " + shard.shard
                                    + " failed, it expires within scan.lease-ttl: " + e);
                }
            } else {
                shard.idle();
            }
            wakeUp();
        }
    }

    private void awaitSignal() {
        Instant now = context.clock().now();
        long waitMillis = MAX_IDLE_WAIT_MILLIS;
        for (OwnedShard shard : owned.values()) {
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
