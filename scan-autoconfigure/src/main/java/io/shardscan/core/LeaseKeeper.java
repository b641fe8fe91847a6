package io.shardscan.core;

import io.shardscan.core.spi.FailureGroup;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.task.Row;
import java.lang.System.Logger.Level;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Keeps one task's leases on this node: the shards it holds, from their claim ({@link ShardClaims},
 * on the lease tick) until they are handed over, released or lost. The node's {@link LeaseRenewals}
 * renews the held leases, apart from the tick, so that a tick that waits (for the task's tables, or
 * for a pool) costs no lease. A lease that cannot be renewed, or whose local deadline passed, is
 * fenced off at once.
 */
final class LeaseKeeper {

    private static final System.Logger log = ScanLogging.getLogger(LeaseKeeper.class);

    private final TaskContext context;
    private final ShardCoordinator coordinator;
    private final EngineSettings settings;
    private final Map<Integer, OwnedShard> owned = new ConcurrentHashMap<>();
    private final CoordinatorHealth health;

    private volatile boolean stopping;
    /** Held while a stopping node's shard leaves owned and joins the stop's releases, and while the stop ends them. */
    private final Object stopQueue = new Object();

    private final StopReleases stopReleases;

    LeaseKeeper(TaskContext context, ShardCoordinator coordinator, EngineSettings settings, CoordinatorHealth health) {
        this.context = context;
        this.coordinator = coordinator;
        this.settings = settings;
        this.health = health;
        this.stopReleases = new StopReleases(context, coordinator, settings);
    }

    /** The shards held, lost ones included until their round ends. */
    Collection<OwnedShard> owned() {
        return owned.values();
    }

    /** The shard held with index {@code shard}, lost ones included until their round ends; {@code null} when none. */
    @Nullable
    OwnedShard owned(int shard) {
        return owned.get(shard);
    }

    /** The shards this node holds a usable lease on, ascending, with their fence epochs. */
    Map<Integer, Long> usable() {
        Map<Integer, Long> shards = new TreeMap<>();
        long now = context.clock().nanos();
        owned.values().stream().filter(s -> s.canDispatch(now)).forEach(s -> shards.put(s.shard, s.epoch));
        return shards;
    }

    /** The indexes of the shards held, as {@link #owned()}. */
    Set<Integer> shards() {
        return owned.keySet();
    }

    /** Whether the stop began: no more claims. */
    boolean stopping() {
        return stopping;
    }

    /**
     * Holds {@code claimed}, granted and fenced just now, unless the stop began: then the caller
     * gives the grant back.
     *
     * @return whether this node holds it now
     */
    boolean hold(OwnedShard claimed) {
        synchronized (stopQueue) {
            // a tick that outlived the stop's wait for it claimed after the stop had released the rest, and
            // the shard was held past the stop ("took shards" logged after "stopped", ShutdownLogTests under
            // load): once the stop began, a grant is given back at once
            if (stopping) {
                return false;
            }
            // before the shard is held: whoever sees it held sees its lease owned (health counts no shard
            // this node holds as unowned until the next tick reads it back)
            health.showClaimed(claimed.shard, claimed.leaseEpoch);
            owned.put(claimed.shard, claimed);
            return true;
        }
    }

    /**
     * After a round: a shard being handed over is released, a lost one dropped, once no straggler
     * of it runs either; any other becomes idle.
     */
    void roundEnded(OwnedShard shard) {
        left(shard, shard.endRound());
    }

    /** After the lanes a round left running ended, as {@link #roundEnded}. */
    void stragglersEnded(OwnedShard shard, List<List<Row>> lanes) {
        left(shard, shard.stragglersEnded(lanes));
    }

    private void left(OwnedShard shard, OwnedShard.@Nullable State left) {
        if (left == OwnedShard.State.RELEASING) {
            release(shard, null);
        } else if (left == OwnedShard.State.LOST) {
            owned.remove(shard.shard, shard);
        }
    }

    /**
     * Begins the stop: claims no more, and hands every shard over, as for a rebalance: idle ones at
     * once, busy ones when their round and stragglers end. From now on every release is one of the
     * stop's {@link StopReleases}: queued, not made on the calling thread.
     */
    void handOverAll() {
        stopping = true;
        owned.values().forEach(s -> handOver(s, null));
    }

    /**
     * While the stop waits for running rounds: renews, in one call, the leases of the shards handed
     * over whose round or stragglers still run, so that no other node takes one before its outcomes
     * are written back and it is released. Claims nothing, hands nothing over and sends no
     * heartbeat. A lease left out of the renewal, or past its local deadline, is fenced off as at a
     * tick, and then dropped instead of released.
     */
    void renewHandedOver() {
        Map<Integer, OwnedShard> asked = renewable();
        if (!asked.isEmpty()) {
            Map<Integer, Long> held = new HashMap<>();
            asked.forEach((shard, owned) -> held.put(shard, owned.leaseEpoch));
            long sentAt = context.clock().nanos();
            try {
                renewed(asked, coordinator.renew(context.name(), settings.nodeId(), held, settings.leaseTtl()), sentAt);
            } catch (RuntimeException e) {
                renewalFailed(e.toString());
            }
        }
        expireOverdue();
    }

    /** The shards the stop released so far, ascending: handed over ones and those released at its end. */
    List<Integer> releasedByStop() {
        return stopReleases.released();
    }

    /**
     * Releases the leases still held (shards whose rounds did not end in time) and leaves the
     * members, waiting for the coordinator no later than {@code deadlineNanos}; after the first
     * failure, or past the deadline, the rest expire by themselves (one WARN says which).
     *
     * @return whether every release of the stop, and leaving, succeeded
     */
    boolean releaseAll(long deadlineNanos) {
        stopping = true;
        synchronized (stopQueue) {
            for (OwnedShard shard : owned.values()) {
                if (owned.remove(shard.shard, shard)) {
                    stopReleases.release(shard);
                }
            }
        }
        // every shard is out of owned and queued: a round that ends now finds nothing to release
        return stopReleases.finish(deadlineNanos);
    }

    String task() {
        return context.name();
    }

    /** The shards whose lease is this node's to renew, by index. */
    Map<Integer, OwnedShard> renewable() {
        Map<Integer, OwnedShard> shards = new HashMap<>();
        owned.values().stream().filter(OwnedShard::leaseHeld).forEach(s -> shards.put(s.shard, s));
        return shards;
    }

    /**
     * A renewal of the leases of {@code asked}, sent at {@code sentAt}, answered: the deadline of
     * each shard in {@code renewed} is extended; one left out was lost. A shard given up or claimed
     * again since the renewal was sent is not touched: the answer was about the lease it had then.
     */
    void renewed(Map<Integer, OwnedShard> asked, Collection<Integer> renewed, long sentAt) {
        Set<Integer> extended = new HashSet<>(renewed);
        asked.forEach((index, shard) -> {
            if (owned.get(index) != shard || !shard.leaseHeld()) {
                return;
            }
            if (extended.contains(index)) {
                shard.renewed(settings.deadlineNanos(sentAt));
            } else {
                lose(shard, "its lease renewal was refused");
            }
        });
        health.renewal(null);
    }

    /** A renewal of this task's leases failed: they lapse at their deadline unless a later one goes through. */
    void renewalFailed(String cause) {
        health.renewal(cause);
    }

    /**
     * Two-phase handover: a shard assigned away is released at once when nothing runs, else once its
     * round and stragglers have written back.
     */
    void handOver(OwnedShard shard, @Nullable ReleasePass pass) {
        if (shard.handOver()) {
            release(shard, pass);
        }
    }

    /**
     * Releases {@code shard} once, whoever asks first: in the stop's releases while stopping, else
     * in {@code pass} (a tick's handovers), else (a round ended) in a pass of its own.
     */
    private void release(OwnedShard shard, @Nullable ReleasePass pass) {
        if (stopping) {
            // removed and queued in one step: a round that ended had removed its shard, then the stop
            // saw no busy shard and ended the queue before the round queued it, whose lease was left to
            // expire (RedisMultiNodeTests under load, ci7)
            synchronized (stopQueue) {
                if (owned.remove(shard.shard, shard)) {
                    stopReleases.release(shard);
                }
            }
            return;
        }
        if (!owned.remove(shard.shard, shard)) {
            return;
        }
        if (pass != null) {
            pass.release(shard.shard, shard.leaseEpoch);
        } else {
            ReleasePass own = new ReleasePass(context, coordinator, settings);
            own.release(shard.shard, shard.leaseEpoch);
            own.report();
        }
    }

    /**
     * After each of the node's renewals: fences off the shards whose local deadline passed, and logs
     * the task's statements that have run longer than {@code scan.lease-ttl}.
     */
    void watch() {
        expireOverdue();
        context.statements().warnSlow(settings.leaseTtl());
    }

    /** The task's longest running statement, if it has run longer than {@code scan.lease-ttl}. */
    @Nullable
    SlowStatement slowStatement() {
        return context.statements().slowest(settings.leaseTtl());
    }

    /** Fences off every held shard whose local deadline passed. */
    void expireOverdue() {
        long now = context.clock().nanos();
        for (OwnedShard shard : owned.values()) {
            if (shard.leaseHeld() && !shard.canDispatch(now)) {
                lose(shard, "its lease deadline passed without a renewal");
            }
        }
    }

    private void lose(OwnedShard shard, String why) {
        if (shard.lose(why)) {
            owned.remove(shard.shard, shard);
        }
    }

    /**
     * The one place a lost lease is reported: every loss, whoever noticed it, once. Counted and told to
     * the listener each time, logged at WARN once per incident: the first loss of its kind (the reason,
     * digits aside), then at most once a minute with how many more shards were lost the same way, else at
     * DEBUG (a node that loses every shard at once, each tick, wrote 69 302 WARN lines in 3 minutes).
     */
    void reportLoss(OwnedShard shard, String why) {
        health.lost(shard.shard);
        String message = "Task " + context.name() + ": shard " + shard.shard + " (fence epoch " + shard.epoch
                + ") fenced off, " + why + "; no more of its rows are started here";
        long suppressed = context.failures()
                .record(
                        "lease lost: " + FailureGroup.keyOf(why),
                        1,
                        context.clock().nanos());
        if (suppressed >= 0) {
            log.log(
                    Level.WARNING,
                    message
                            + (suppressed > 0
                                    ? "; and " + suppressed + " more shards were fenced off the same way"
                                            + " since the last such line"
                                    : ""));
        } else {
            log.log(Level.DEBUG, message);
        }
        // counted and told last: whoever sees the count or the event finds the line already logged
        context.stats().leaseLost();
        context.listener().leaseLost(context.name(), shard.shard);
    }
}
