package io.shardscan.core;

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
 * Keeps one task's leases on this node, on the task's control thread: each tick heartbeats,
 * renews every held lease in one call, computes the assignment, hands over shards assigned away
 * (after their running round) and claims free shards assigned here, fencing each new epoch in the
 * store before the first round. A lease that cannot be renewed, or whose local deadline passed, is
 * fenced off at once.
 */
final class LeaseKeeper {

    private static final System.Logger log = ScanLogging.getLogger(LeaseKeeper.class);

    private final TaskContext context;
    private final ShardCoordinator coordinator;
    private final EngineSettings settings;
    private final Map<Integer, OwnedShard> owned = new ConcurrentHashMap<>();
    private volatile List<Member> members = List.of();
    private volatile List<LeaseInfo> leases = List.of();
    private volatile boolean coordinatorReachable = true;
    private volatile boolean settled;
    private final ForeignOwners foreignOwners;

    LeaseKeeper(TaskContext context, ShardCoordinator coordinator, EngineSettings settings) {
        this.context = context;
        this.coordinator = coordinator;
        this.settings = settings;
        this.foreignOwners = new ForeignOwners(context, settings.nodeId(), coordinator.kind());
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

    boolean coordinatorReachable() {
        return coordinatorReachable;
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
            List<Member> live = coordinator.heartbeat(
                    context.name(), settings.nodeId(), settings.memberTimeout(), NodeCounters.of(context.stats()));
            members = live;
            foreignOwners.check(live);
            renew();
            Set<Integer> target = new HashSet<>(coordinator.assign(settings.nodeId(), live, currentOwners()));
            owned.values().stream().filter(s -> !target.contains(s.shard)).forEach(this::handOver);
            if (claim) {
                target.stream()
                        .filter(shard -> !owned.containsKey(shard))
                        .sorted()
                        .forEach(this::claim);
            }
            settled = owned.keySet().equals(target)
                    && owned.values().stream().allMatch(s -> s.state() != OwnedShard.State.RELEASING)
                    && noMemberSilent(live);
            reachable(true, null);
        } catch (RuntimeException e) {
            reachable(false, e);
        }
        expireOverdue();
        return settled;
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
            release(shard);
        } else if (left == OwnedShard.State.LOST) {
            owned.remove(shard.shard, shard);
        }
    }

    /** Hands every shard over, as for a rebalance: idle ones at once, busy ones when their round and stragglers end. */
    void handOverAll() {
        owned.values().forEach(this::handOver);
    }

    /**
     * Releases the leases still held (shards whose rounds did not end in time) and leaves the
     * members; on failure the leases expire by themselves.
     */
    void releaseAll() {
        try {
            owned.values().forEach(s -> coordinator.release(context.name(), s.shard, settings.nodeId(), s.leaseEpoch));
            coordinator.leave(context.name(), settings.nodeId());
        } catch (RuntimeException e) {
            log.log(
                    Level.WARNING,
                    "Task " + context.name() + ": could not release leases on shutdown; they expire"
                            + " within scan.lease-ttl (" + settings.leaseTtl() + "): " + e);
        }
        owned.clear();
    }

    private String[] currentOwners() {
        String[] owners = new String[context.definition().shards()];
        leases = List.copyOf(coordinator.leases(context.name()));
        for (LeaseInfo lease : leases) {
            if (lease.shard() >= 0 && lease.shard() < owners.length) {
                owners[lease.shard()] = lease.owner();
            }
        }
        return owners;
    }

    private void renew() {
        Map<Integer, Long> epochs = new HashMap<>();
        owned.values().stream().filter(LeaseKeeper::held).forEach(s -> epochs.put(s.shard, s.leaseEpoch));
        if (epochs.isEmpty()) {
            return;
        }
        long sentAt = context.clock().nanos();
        Set<Integer> renewed =
                new HashSet<>(coordinator.renew(context.name(), settings.nodeId(), epochs, settings.leaseTtl()));
        for (OwnedShard shard : owned.values()) {
            if (!epochs.containsKey(shard.shard) || !held(shard)) {
                continue;
            }
            if (renewed.contains(shard.shard)) {
                shard.renewed(settings.deadlineNanos(sentAt));
            } else {
                lose(shard, "its lease renewal was refused");
            }
        }
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
     */
    private void claim(int shard) {
        Optional<Lease> lease = coordinator.tryAcquire(context.name(), shard, settings.nodeId(), settings.leaseTtl());
        if (lease.isEmpty()) {
            return;
        }
        long grantedAt = context.clock().nanos();
        Lease granted = lease.get();
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
            return;
        }
        owned.put(
                shard,
                new OwnedShard(
                        shard,
                        granted.epoch(),
                        epoch,
                        settings.deadlineNanos(grantedAt),
                        context.definition().tiers(),
                        held,
                        context.clock().now(),
                        this::reportLoss));
        // its first round starts now, not after the tick claimed every other shard
        context.wakeUp();
        log.log(
                Level.DEBUG,
                () -> "Task " + context.name() + ": claimed shard " + shard + " lease " + granted.epoch()
                        + " fence epoch " + epoch
                        + (held.size() > 0 ? ", " + held.size() + " keys waiting on failed rows" : ""));
    }

    /**
     * Two-phase handover: a shard assigned away is released at once when nothing runs, else once its
     * round and stragglers have written back.
     */
    private void handOver(OwnedShard shard) {
        if (shard.handOver()) {
            release(shard);
        }
    }

    private void release(OwnedShard shard) {
        owned.remove(shard.shard, shard);
        try {
            coordinator.release(context.name(), shard.shard, settings.nodeId(), shard.leaseEpoch);
        } catch (RuntimeException e) {
            log.log(
                    Level.WARNING,
                    "Task " + context.name() + ": release of shard " + shard.shard
                            + " failed, its lease expires within scan.lease-ttl (" + settings.leaseTtl() + "): " + e);
        }
    }

    private void expireOverdue() {
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

    /** The one place a lost lease is reported: every loss, whoever noticed it, once. */
    private void reportLoss(OwnedShard shard, String why) {
        context.stats().leaseLost();
        context.listener().leaseLost(context.name(), shard.shard);
        foreignOwners.lost(shard.shard);
        log.log(
                Level.WARNING,
                "Task " + context.name() + ": shard " + shard.shard + " (fence epoch " + shard.epoch + ") fenced off, "
                        + why + "; no more of its rows are started here");
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
}
