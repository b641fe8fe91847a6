package io.shardscan.core;

import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.spi.Member;
import io.shardscan.core.spi.NodeCounters;
import io.shardscan.core.spi.ShardCoordinator;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * One task's coordinator as this node sees it, for the health and the claims: the members and
 * leases its last lease tick read (with this node's claims since), whether it answers the tick and
 * the node's lease renewals ({@link Reachability}, which a call that hangs past
 * {@code scan.lease-ttl} makes unreachable while it hangs), and another cluster's nodes on the same
 * shards ({@link ForeignOwners}), and whether this node holds back after rejoining the members
 * ({@link RejoinHold}). Thread-safe; only the control thread ticks.
 */
final class CoordinatorHealth {

    private static final long NOT_TICKING = Long.MIN_VALUE;

    private final TaskContext context;
    private final ShardCoordinator coordinator;
    private final EngineSettings settings;
    private final LeaseRenewals renewals;
    private final Reachability reachability;
    private final ForeignOwners foreignOwners;
    private final RejoinHold rejoinHold;
    private volatile List<Member> members = List.of();
    private volatile List<LeaseInfo> leases = List.of();
    /** When the coordinator call of the running tick was made; {@link #NOT_TICKING} between ticks. */
    private volatile long tickSentAt = NOT_TICKING;

    CoordinatorHealth(
            TaskContext context, ShardCoordinator coordinator, EngineSettings settings, LeaseRenewals renewals) {
        this.context = context;
        this.coordinator = coordinator;
        this.settings = settings;
        this.renewals = renewals;
        this.reachability = new Reachability(context.name(), coordinator.location());
        this.foreignOwners = new ForeignOwners(context, settings.nodeId(), coordinator.kind(), settings.leaseTtl());
        this.rejoinHold = new RejoinHold(
                context.name(),
                context.clock(),
                settings.rejoinDamping(),
                settings.memberTimeout(),
                settings.renewInterval());
    }

    /** This node's hold after rejoining the members, as the endpoint shows it; {@code null} when it does not hold back. */
    @Nullable
    RejoinHoldStatus rejoinHold() {
        return rejoinHold.status();
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

    /**
     * Heartbeats and reads who holds what, in one {@link ShardCoordinator#tick}, on the control thread,
     * unless the node's renewals did so for this tick ({@code read}); keeps the members and leases read
     * and checks them for another cluster's nodes. The heartbeat publishes whether this node holds back
     * after a rejoin ({@link #heartbeat}), and the answer says whether it rejoined ({@link RejoinHold});
     * the members kept show this node's own hold even when its heartbeat did not carry it yet, so that
     * its own assignment never claims what the others keep. A call that hangs shows through
     * {@link #coordinatorReachable}; one that fails is the caller's to report ({@link #tickFailed}).
     */
    void tick(ShardCoordinator.@Nullable Tick read) {
        ShardCoordinator.Tick tick = read;
        if (tick == null) {
            tickSentAt = context.clock().nanos();
            try {
                // renews nothing: the node's renewals do, apart from this tick
                tick = coordinator.tick(
                        context.name(),
                        settings.nodeId(),
                        settings.memberTimeout(),
                        heartbeat(),
                        Map.of(),
                        settings.leaseTtl());
            } finally {
                tickSentAt = NOT_TICKING;
            }
        }
        // the coordinator answered: before the claims, so that whoever sees a shard claimed sees it so
        reachability.tick(null);
        List<Member> live = withOwnHold(tick.members());
        members = live;
        leases = List.copyOf(tick.leases());
        foreignOwners.check(live);
        foreignOwners.checkLeases(leases);
    }

    /** The counters a heartbeat sent now publishes, with whether this node holds back after a rejoin. */
    NodeCounters heartbeat() {
        return context.stats()
                .counters(context.definition().shards(), settings.nodeWeight())
                .holdingBack(rejoinHold.publish());
    }

    /** The members with this node's heartbeat read for a rejoin, and its own hold shown. */
    private List<Member> withOwnHold(List<Member> live) {
        Member own = live.stream()
                .filter(m -> m.node().equals(settings.nodeId()))
                .findFirst()
                .orElse(null);
        if (own == null) {
            return live;
        }
        rejoinHold.answered(own.lastHeartbeat());
        NodeCounters counters = own.counters();
        if (counters == null || counters.holdingBack() || !rejoinHold.holding()) {
            return live;
        }
        return live.stream()
                .map(m -> m == own ? new Member(m.node(), m.lastHeartbeat(), counters.holdingBack(true)) : m)
                .toList();
    }

    /** The task's lease tick failed with {@code failure}. */
    void tickFailed(String failure) {
        reachability.tick(failure);
    }

    /** The node's lease renewal answered ({@code failure} null) or failed with {@code failure}. */
    void renewal(@Nullable String failure) {
        reachability.renewal(failure);
    }

    /** A shard of the task was fenced off here: who holds it now is checked at the next tick. */
    void lost(int shard) {
        foreignOwners.lost(shard);
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
    boolean renewalHangs() {
        return renewals.waitingNanos() > settings.leaseTtl().toNanos();
    }

    private synchronized void hung(long sentAt, Duration waited) {
        if (tickSentAt == sentAt) {
            reachability.tick("its lease tick has not returned for " + waited.toSeconds()
                    + " s, longer than scan.lease-ttl (" + settings.leaseTtl() + ")");
        }
    }

    /**
     * Puts this node's claim of {@code shard} into the leases the last tick read, expiring one lease
     * TTL after this node's heartbeat in that tick (the coordinator's time, as the tick's leases).
     */
    void showClaimed(int shard, long epoch) {
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
}
