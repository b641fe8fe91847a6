package io.shardscan.core;

import io.shardscan.core.spi.FailureGroup;
import io.shardscan.core.spi.Lease;
import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.spi.Member;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.spi.ShardCountConflict;
import io.shardscan.core.task.Ordering;
import io.shardscan.core.task.Row;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Keeps one task's leases on this node. On the task's control thread, each tick heartbeats and
 * reads who holds what in one {@link ShardCoordinator#tick}, computes the assignment, hands over
 * shards assigned away (after their running round) and claims free shards assigned here, fencing
 * each new epoch in the store before the first round. The node's {@link LeaseRenewals} renews the
 * held leases, apart from the tick, so that a tick that waits (for the task's tables, or for a pool)
 * costs no lease. A lease that cannot be renewed, or whose local deadline passed, is fenced off at
 * once.
 */
final class LeaseKeeper {

    private static final System.Logger log = ScanLogging.getLogger(LeaseKeeper.class);
    private static final long NOT_TICKING = Long.MIN_VALUE;

    private final TaskContext context;
    private final ShardCoordinator coordinator;
    private final EngineSettings settings;
    private final Map<Integer, OwnedShard> owned = new ConcurrentHashMap<>();
    private volatile List<Member> members = List.of();
    private volatile List<LeaseInfo> leases = List.of();
    private final Reachability reachability;
    private final LeaseRenewals renewals;
    /** When the coordinator call of the running tick was made; {@link #NOT_TICKING} between ticks. */
    private volatile long tickSentAt = NOT_TICKING;

    private volatile boolean settled;
    private volatile boolean stopping;
    /** Held while a stopping node's shard leaves owned and joins the stop's releases, and while the stop ends them. */
    private final Object stopQueue = new Object();

    private final ForeignOwners foreignOwners;
    private final StopReleases stopReleases;
    private final ShardCountWatch shardCounts;

    LeaseKeeper(TaskContext context, ShardCoordinator coordinator, EngineSettings settings, LeaseRenewals renewals) {
        this.context = context;
        this.coordinator = coordinator;
        this.settings = settings;
        this.renewals = renewals;
        this.reachability = new Reachability(context.name(), coordinator.location());
        this.foreignOwners = new ForeignOwners(context, settings.nodeId(), coordinator.kind(), settings.leaseTtl());
        this.stopReleases = new StopReleases(context, coordinator, settings);
        this.shardCounts = new ShardCountWatch(context.name());
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

    List<Member> members() {
        return members;
    }

    /** Every shard's lease as the coordinator showed it at the last tick. */
    List<LeaseInfo> leases() {
        return leases;
    }

    String coordinatorKind() {
        return coordinator.kind();
    }

    /** Why this node claims no shard of the task, as the last tick found; {@code null} when it may. */
    @Nullable
    ShardCountConflict shardCountConflict() {
        return shardCounts.conflict();
    }

    /**
     * Whether the coordinator answered the last tick and the node's last lease renewal, and neither
     * running one (if any) has waited for it longer than {@code scan.lease-ttl}: by then every lease
     * it renews lapsed, so a call that hangs (a pool waiting for a connection from a database that is
     * gone) shows as unreachable while it hangs, not only once it gives up. The first to notice the
     * hang logs it.
     */
    boolean coordinatorReachable() {
        if (reachability.reachable()) {
            long ttl = settings.leaseTtl().toNanos();
            if (renewalHangs()) {
                reachability.renewal("its lease renewal has not returned for "
                        + Duration.ofNanos(renewals.waitingNanos()).toSeconds() + " s, longer than scan.lease-ttl ("
                        + settings.leaseTtl() + ")");
            }
            long sentAt = tickSentAt;
            if (sentAt != NOT_TICKING && context.clock().nanos() - sentAt > ttl) {
                hung(sentAt, Duration.ofNanos(context.clock().nanos() - sentAt));
            }
        }
        return reachability.reachable();
    }

    /** Whether the node's lease renewal running now has waited longer than the lease TTL. */
    private boolean renewalHangs() {
        return renewals.waitingNanos() > settings.leaseTtl().toNanos();
    }

    private synchronized void hung(long sentAt, Duration waited) {
        if (tickSentAt == sentAt) {
            reachability.tick("its lease tick has not returned for " + waited.toSeconds()
                    + " s, longer than scan.lease-ttl (" + settings.leaseTtl() + ")");
        }
    }

    /** Whether the last tick found the layout settled (see {@link #tick}); false before the first. */
    boolean settled() {
        return settled;
    }

    /**
     * One renew interval's work; {@code claim} is false once the task stops.
     *
     * @return whether the layout is settled: every shard assigned here is held, none is being
     *     handed over, and no member missed its last heartbeat
     */
    boolean tick(boolean claim) {
        settled = tickSettled(claim);
        return settled;
    }

    private boolean tickSettled(boolean claim) {
        boolean settled = false;
        try {
            ShardCoordinator.Tick tick;
            tickSentAt = context.clock().nanos();
            try {
                // renews nothing: the node's renewals do, apart from this tick
                tick = coordinator.tick(
                        context.name(),
                        settings.nodeId(),
                        settings.memberTimeout(),
                        context.stats().counters(context.definition().shards()),
                        Map.of(),
                        settings.leaseTtl());
            } finally {
                tickSentAt = NOT_TICKING;
            }
            // the coordinator answered: before the claims, so that whoever sees a shard claimed sees it so
            reachability.tick(null);
            List<Member> live = tick.members();
            members = live;
            leases = List.copyOf(tick.leases());
            foreignOwners.check(live);
            foreignOwners.checkLeases(leases);
            ShardCountRule.Verdict counts =
                    ShardCountRule.judge(settings.nodeId(), context.definition().shards(), live, leases);
            shardCounts.seen(counts.conflict());
            // in conflict every shard is handed over and none claimed; else only nodes of this count share them
            Set<Integer> target = counts.conflict() != null
                    ? Set.of()
                    : new HashSet<>(coordinator.assign(settings.nodeId(), counts.peers(), currentOwners()));
            List<Integer> handing = owned.values().stream()
                    .filter(s -> !target.contains(s.shard)
                            && (s.state() == OwnedShard.State.IDLE || s.state() == OwnedShard.State.BUSY))
                    .map(s -> s.shard)
                    .sorted()
                    .toList();
            ReleasePass handovers = new ReleasePass(context, coordinator, settings);
            owned.values().stream().filter(s -> !target.contains(s.shard)).forEach(s -> handOver(s, handovers));
            handovers.report();
            if (!handing.isEmpty() && !stopping) {
                log.log(
                        Level.INFO,
                        "Task " + context.name() + ": handing shards " + handing + " over to rebalance (one whose"
                                + " round runs goes once it wrote back); this node keeps " + kept(target) + " of "
                                + context.definition().shards());
            }
            // a tick that hung in the coordinator may return after the task began to stop; and while the
            // node's renewal hangs past the TTL every lease it claims would lapse a TTL later, lost and
            // claimed again each time (fence epochs and WARNs churning): it claims none until the renewal returns
            if (claim && !stopping && !renewalHangs()) {
                List<Integer> took = target.stream()
                        .filter(shard -> !owned.containsKey(shard))
                        .sorted()
                        .filter(shard -> !stopping && claim(shard))
                        .toList();
                if (!took.isEmpty()) {
                    log.log(
                            Level.INFO,
                            "Task " + context.name() + ": took shards " + took + "; this node holds " + kept(target)
                                    + " of " + context.definition().shards());
                }
            }
            settled = owned.keySet().equals(target)
                    && owned.values().stream().allMatch(s -> s.state() != OwnedShard.State.RELEASING)
                    && noMemberSilent(live);
        } catch (RuntimeException e) {
            reachability.tick(e.toString());
        }
        expireOverdue();
        return settled;
    }

    /** The shards of {@code target} this node holds: not those it is handing over. */
    private long kept(Set<Integer> target) {
        return owned.keySet().stream().filter(target::contains).count();
    }

    /** Whether every member heartbeat within 1.5 renew intervals of the newest one (all coordinator time). */
    private boolean noMemberSilent(List<Member> live) {
        Instant newest =
                live.stream().map(Member::lastHeartbeat).max(Instant::compareTo).orElse(Instant.EPOCH);
        Duration allowed =
                settings.renewInterval().plus(settings.renewInterval().dividedBy(2));
        return live.stream().allMatch(m -> !m.lastHeartbeat().plus(allowed).isBefore(newest));
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

    private String[] currentOwners() {
        String[] owners = new String[context.definition().shards()];
        for (LeaseInfo lease : leases) {
            if (lease.shard() >= 0 && lease.shard() < owners.length) {
                owners[lease.shard()] = lease.owner();
            }
        }
        return owners;
    }

    String task() {
        return context.name();
    }

    /** The shards whose lease is this node's to renew, by index. */
    Map<Integer, OwnedShard> renewable() {
        Map<Integer, OwnedShard> shards = new HashMap<>();
        owned.values().stream().filter(LeaseKeeper::held).forEach(s -> shards.put(s.shard, s));
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
            if (owned.get(index) != shard || !held(shard)) {
                return;
            }
            if (extended.contains(index)) {
                shard.renewed(settings.deadlineNanos(sentAt));
            } else {
                lose(shard, "its lease renewal was refused");
            }
        });
        reachability.renewal(null);
    }

    /** A renewal of this task's leases failed: they lapse at their deadline unless a later one goes through. */
    void renewalFailed(String cause) {
        reachability.renewal(cause);
    }

    /** Whether the lease on {@code shard} is still this node's to renew. */
    private static boolean held(OwnedShard shard) {
        OwnedShard.State state = shard.state();
        return state == OwnedShard.State.IDLE || state == OwnedShard.State.BUSY || state == OwnedShard.State.RELEASING;
    }

    /**
     * Claims a free shard: the coordinator grants the lease, then the database issues the fence
     * epoch every write-back of this ownership is checked against, and the keys waiting on failed
     * rows are read back from the table, before the first round.
     *
     * @return whether this node holds the shard now
     */
    private boolean claim(int shard) {
        Optional<Lease> lease = coordinator.tryAcquire(context.name(), shard, settings.nodeId(), settings.leaseTtl());
        if (lease.isEmpty()) {
            return false;
        }
        long grantedAt = context.clock().nanos();
        Lease granted = lease.get();
        // the coordinator granted a lease: a renewal that failed while the node held nothing (so renewed
        // nothing since) no longer says it cannot be reached; one that hangs still does (a tick that checked
        // before the hang passed the TTL claims after it: clearing it then made the node reachable and
        // unreachable again, two WARNs for one hang, seen under two busy loops)
        if (!renewalHangs()) {
            reachability.renewal(null);
        }
        long epoch;
        HeldKeys held = new HeldKeys(context.definition().ordering() == Ordering.PER_KEY);
        try {
            epoch = context.store().fence(context.definition(), shard, settings.nodeId());
            if (context.definition().ordering() == Ordering.PER_KEY) {
                context.store().failedRows(context.definition(), shard).forEach(held::hold);
            }
        } catch (RuntimeException e) {
            context.stats().fenceFailed();
            log.log(
                    Level.WARNING,
                    "Task " + context.name() + ": shard " + shard + " was granted but its fence could not be raised"
                            + " in the database, so it is given back and claimed again later: " + e);
            coordinator.release(context.name(), shard, settings.nodeId(), granted.epoch());
            return false;
        }
        // before the shard is held: whoever sees it held sees its lease owned (health counts no shard
        // this node holds as unowned until the next tick reads it back)
        OwnedShard claimed = new OwnedShard(
                shard,
                granted.epoch(),
                epoch,
                settings.deadlineNanos(grantedAt),
                context.definition().tiers(),
                held,
                context.clock().now(),
                this::reportLoss);
        boolean stopped;
        synchronized (stopQueue) {
            // a tick that outlived the stop's wait for it claimed after the stop had released the rest, and
            // the shard was held past the stop ("took shards" logged after "stopped", ShutdownLogTests under
            // load): once the stop began, a grant is given back at once
            stopped = stopping;
            if (!stopped) {
                showClaimed(shard, granted.epoch());
                owned.put(shard, claimed);
            }
        }
        if (stopped) {
            try {
                coordinator.release(context.name(), shard, settings.nodeId(), granted.epoch());
            } catch (RuntimeException e) {
                log.log(
                        Level.DEBUG,
                        () -> "Task " + context.name() + ": shard " + shard + " granted during the stop"
                                + " could not be given back, its lease expires: " + e);
            }
            return false;
        }
        context.listener().shardClaimed(context.name(), shard, epoch);
        // its first round starts now, not after the tick claimed every other shard
        context.wakeUp();
        log.log(
                Level.DEBUG,
                () -> "Task " + context.name() + ": claimed shard " + shard + " lease " + granted.epoch()
                        + " fence epoch " + epoch
                        + (held.size() > 0 ? ", " + held.size() + " keys waiting on failed rows" : ""));
        return true;
    }

    /**
     * Puts this node's claim of {@code shard} into the leases the last tick read, expiring one lease
     * TTL after this node's heartbeat in that tick (the coordinator's time, as the tick's leases).
     */
    private void showClaimed(int shard, long epoch) {
        @Nullable
        Instant expires = members.stream()
                .filter(m -> m.node().equals(settings.nodeId()))
                .map(m -> m.lastHeartbeat().plus(settings.leaseTtl()))
                .findFirst()
                .orElse(null);
        Map<Integer, LeaseInfo> byShard = new TreeMap<>();
        leases.forEach(l -> byShard.put(l.shard(), l));
        byShard.put(shard, new LeaseInfo(shard, settings.nodeId(), epoch, expires));
        leases = List.copyOf(byShard.values());
    }

    /**
     * Two-phase handover: a shard assigned away is released at once when nothing runs, else once its
     * round and stragglers have written back.
     */
    private void handOver(OwnedShard shard, @Nullable ReleasePass pass) {
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
            if (held(shard) && !shard.canDispatch(now)) {
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
    private void reportLoss(OwnedShard shard, String why) {
        foreignOwners.lost(shard.shard);
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
