package io.shardscan.core;

import io.shardscan.core.spi.Lease;
import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.spi.Member;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.spi.ShardCountConflict;
import io.shardscan.core.task.Ordering;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The claims of one task's leases on this node. On the task's control thread, each tick heartbeats
 * and reads who holds what ({@link CoordinatorHealth#tick}), computes the assignment, hands over
 * shards assigned away (after their running round) and claims free shards assigned here, fencing
 * each new epoch in the store before the first round; {@link LeaseKeeper} keeps what it claimed.
 */
final class ShardClaims {

    // the claims' lines keep the lease keeper's logger, which applications and tests filter on
    private static final System.Logger log = ScanLogging.getLogger(LeaseKeeper.class);

    private final TaskContext context;
    private final ShardCoordinator coordinator;
    private final EngineSettings settings;
    private final LeaseKeeper keeper;
    private final CoordinatorHealth health;
    private final ShardCountWatch shardCounts;

    private volatile boolean settled;

    ShardClaims(
            TaskContext context,
            ShardCoordinator coordinator,
            EngineSettings settings,
            LeaseKeeper keeper,
            CoordinatorHealth health) {
        this.context = context;
        this.coordinator = coordinator;
        this.settings = settings;
        this.keeper = keeper;
        this.health = health;
        this.shardCounts = new ShardCountWatch(context.name());
    }

    /** Why this node claims no shard of the task, as the last tick found; {@code null} when it may. */
    @Nullable
    ShardCountConflict shardCountConflict() {
        return shardCounts.conflict();
    }

    /** See {@link ShardCountWatch#splitParents()}. */
    int splitParents() {
        return shardCounts.splitParents();
    }

    /** See {@link ShardCountWatch#splitInto()}. */
    int splitInto() {
        return shardCounts.splitInto();
    }

    /** Whether the last tick found the layout settled (see {@link #tick}); false before the first. */
    boolean settled() {
        return settled;
    }

    /**
     * One renew interval's work; {@code claim} is false once the task stops; {@code read} is what the
     * node's renewals read for this tick, {@code null} when it calls the coordinator itself.
     *
     * @return whether the layout is settled: every shard assigned here is held, none is being
     *     handed over, and no member missed its last heartbeat
     */
    boolean tick(boolean claim, ShardCoordinator.@Nullable Tick read) {
        settled = tickSettled(claim, read);
        return settled;
    }

    private boolean tickSettled(boolean claim, ShardCoordinator.@Nullable Tick read) {
        boolean settled = false;
        try {
            health.tick(read);
            List<Member> live = health.members();
            List<LeaseInfo> leases = health.leases();
            int shards = context.definition().shards();
            ShardCountRule.Verdict counts = ShardCountRule.judge(
                    settings.nodeId(),
                    shards,
                    live,
                    leases,
                    context.definition().splitsShards());
            shardCounts.seen(counts.conflict());
            shardCounts.seenSplit(counts.parents(), counts.splitInto());
            // in conflict every shard is handed over and none claimed; else the peers share the parents
            // (this node's own shards but in a split), and a parent given here is this node's children of it
            Set<Integer> target = new HashSet<>();
            if (counts.conflict() == null) {
                int parents = counts.parents();
                String[] owners = currentOwners(parents, counts.split());
                for (int parent : coordinator.assign(settings.nodeId(), counts.peers(), owners)) {
                    for (int shard = parent; shard < shards; shard += parents) {
                        target.add(shard);
                    }
                }
            }
            List<Integer> handing = keeper.owned().stream()
                    .filter(s -> !target.contains(s.shard) && s.staying())
                    .map(s -> s.shard)
                    .sorted()
                    .toList();
            ReleasePass handovers = new ReleasePass(context, coordinator, settings);
            keeper.owned().stream().filter(s -> !target.contains(s.shard)).forEach(s -> keeper.handOver(s, handovers));
            handovers.report();
            if (!handing.isEmpty() && !keeper.stopping()) {
                log.log(
                        Level.INFO,
                        "Task " + context.name() + ": handing shards " + handing + " over to rebalance (one whose"
                                + " round runs goes once it wrote back); this node keeps " + kept(target) + " of "
                                + context.definition().shards());
            }
            // a tick that hung in the coordinator may return after the task began to stop; and while the
            // node's renewal hangs past the TTL every lease it claims would lapse a TTL later, lost and
            // claimed again each time (fence epochs and WARNs churning): it claims none until the renewal returns
            if (claim && !keeper.stopping() && !health.renewalHangs()) {
                Set<Integer> taken = heldByOthers(live, counts);
                int parents = counts.parents();
                // ascending, so that in a split a parent's own lease is claimed before its other children,
                // each of which waits until this node holds the parent (no node of the other count then can)
                List<Integer> took = target.stream()
                        .filter(shard -> !keeper.shards().contains(shard) && !taken.contains(shard))
                        .sorted()
                        .filter(shard -> shard < parents || keeper.shards().contains(shard % parents))
                        .filter(shard -> !keeper.stopping() && claim(shard))
                        .toList();
                if (!took.isEmpty()) {
                    log.log(
                            Level.INFO,
                            "Task " + context.name() + ": took shards " + took + "; this node holds " + kept(target)
                                    + " of " + context.definition().shards());
                }
            }
            settled = keeper.shards().equals(target)
                    && keeper.owned().stream().noneMatch(OwnedShard::releasing)
                    && noMemberSilent(live);
        } catch (RuntimeException e) {
            health.tickFailed(e.toString());
        }
        keeper.expireOverdue();
        return settled;
    }

    /** The shards of {@code target} this node holds: not those it is handing over. */
    private long kept(Set<Integer> target) {
        return keeper.shards().stream().filter(target::contains).count();
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
     * The shards another live member held a lease on at this tick's read: no claim of one can succeed
     * before it hands the shard over, which a later tick reads (a node that joined, or whose rejoin hold
     * ended, tried every shard of its share each tick until the owners had handed them over).
     */
    private Set<Integer> heldByOthers(List<Member> live, ShardCountRule.Verdict counts) {
        Set<String> others = new HashSet<>();
        live.stream()
                .map(Member::node)
                .filter(n -> !n.equals(settings.nodeId()))
                .forEach(others::add);
        Set<Integer> held = new HashSet<>();
        // in a split, a node of the smaller count takes no parent while another node holds a child of it
        int parents = counts.split() && context.definition().shards() == counts.parents() ? counts.parents() : 0;
        for (LeaseInfo lease : health.leases()) {
            if (lease.owner() != null && others.contains(lease.owner())) {
                held.add(lease.shard());
                if (parents > 0 && lease.shard() >= parents) {
                    held.add(lease.shard() % parents);
                }
            }
        }
        return held;
    }

    /**
     * Who holds each of the {@code parents} shards the assignment shares: a shard's lease owner, else
     * (in a split) the owner of a child of it, which is the parent's as long as it holds one.
     */
    private String[] currentOwners(int parents, boolean split) {
        String[] owners = new String[parents];
        for (LeaseInfo lease : health.leases()) {
            if (lease.shard() >= 0 && lease.shard() < parents && lease.owner() != null) {
                owners[lease.shard()] = lease.owner();
            }
        }
        for (LeaseInfo lease : split ? health.leases() : List.<LeaseInfo>of()) {
            if (lease.shard() >= parents && lease.owner() != null && owners[lease.shard() % parents] == null) {
                owners[lease.shard() % parents] = lease.owner();
            }
        }
        return owners;
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
        if (!health.renewalHangs()) {
            health.renewal(null);
        }
        long epoch;
        HeldKeys held = new HeldKeys(context.definition().ordering() == Ordering.PER_KEY);
        try {
            epoch = context.store().fence(context.definition(), shard, settings.nodeId());
            if (epoch == 0) {
                // a node of a smaller shard count may still run this shard's rows (its parent's fence is
                // that count's): the parent's next owner of this count fences it, a later tick claims this
                log.log(
                        Level.DEBUG,
                        () -> "Task " + context.name() + ": shard " + shard + " waits for its parent's fence of"
                                + " this shard count; given back");
                coordinator.release(context.name(), shard, settings.nodeId(), granted.epoch());
                return false;
            }
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
        OwnedShard claimed = new OwnedShard(
                shard,
                granted.epoch(),
                epoch,
                settings.deadlineNanos(grantedAt),
                context.definition().tiers(),
                held,
                context.clock().now(),
                keeper::reportLoss);
        if (!keeper.hold(claimed)) {
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
}
