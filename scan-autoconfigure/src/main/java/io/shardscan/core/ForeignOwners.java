package io.shardscan.core;

import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.spi.Member;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Two clusters that run the same shards, seen from either side; each is logged at ERROR, counted and
 * shown in the health (DOWN).
 *
 * <p>After a lost shard: who holds its fence now, and whether that node is a member of this node's
 * coordinator. A newer owner that is not is a node of another cluster on the same database (a wrong
 * {@code spring.data.redis.*} or {@code scan.coordinator}): both clusters run the shard's rows.
 * Checked on the control thread at the next tick, with the members that tick read: a node of this
 * cluster heartbeats before it claims.
 *
 * <p>The other way round: a member of this node's coordinator whose lease of a shard the ticks of a
 * whole lease TTL saw (its claim raised the fence right after the grant: a node starved of CPU for
 * seconds is not judged) while the shard's fence in this database names another node,
 * or none, works on another database: two applications share the coordinator's keys (one Redis, one
 * task name, one {@code scan.redis.namespace}) but not the database, and this database's rows of its
 * shards are never run. Each lease is looked up once (one statement), and again while it stays
 * foreign; an absent fence counts only once the store has named this node as the owner of a fence
 * of its own (a store that records no owners is never judged).
 */
final class ForeignOwners {

    private static final System.Logger log = ScanLogging.getLogger(ForeignOwners.class);

    private final TaskContext context;
    private final String nodeId;
    private final String coordinatorKind;
    private final Queue<Integer> lost = new ConcurrentLinkedQueue<>();
    private final long judgeAfterNanos;
    /** Other members' leases the last tick saw, by shard, since when; only the control thread touches these. */
    private Map<Integer, Seen> seen = Map.of();
    /** The lease of each shard whose fence named its owner. */
    private final Map<Integer, LeaseInfo> confirmed = new HashMap<>();
    /** Whether the store named this node as a fence's owner: it records owners, so an absent fence means none. */
    private boolean storeNamesOwners;

    ForeignOwners(TaskContext context, String nodeId, String coordinatorKind, Duration leaseTtl) {
        this.context = context;
        this.nodeId = nodeId;
        this.coordinatorKind = coordinatorKind;
        this.judgeAfterNanos = leaseTtl.toNanos();
    }

    /** A shard was fenced off here; from any thread. */
    void lost(int shard) {
        lost.add(shard);
    }

    /** Looks up the fence owner of every shard lost since the last call, against {@code members}. */
    void check(List<Member> members) {
        for (Integer shard = lost.poll(); shard != null; shard = lost.poll()) {
            String owner;
            try {
                owner = context.store().fenceOwner(context.definition(), shard).orElse(null);
            } catch (RuntimeException e) {
                // the round's own failure handling reports an unreachable database
                continue;
            }
            if (owner == null || owner.equals(nodeId) || isMember(owner, members)) {
                continue;
            }
            context.stats()
                    .foreignFence(new ForeignFence(owner, shard, context.clock().now()));
            log.log(
                    Level.ERROR,
                    "Task " + context.name() + ": node " + owner + " holds shard " + shard
                            + "'s fence but is not a member of this node's (" + nodeId + ") coordinator ("
                            + coordinatorKind + ", members "
                            + members.stream().map(Member::node).sorted().collect(Collectors.joining(", "))
                            + "); both run the shard's rows: " + ForeignFence.cause(coordinatorKind));
        }
    }

    /** Compares the leases one tick read with this database's fences; on the control thread. */
    void checkLeases(List<LeaseInfo> leases) {
        long now = context.clock().nanos();
        Map<Integer, Seen> others = new HashMap<>();
        for (LeaseInfo lease : leases) {
            if (lease.owner() == null) {
                continue;
            }
            if (lease.owner().equals(nodeId)) {
                if (!storeNamesOwners) {
                    storeNamesOwners = nodeId.equals(fenceOwner(lease.shard()));
                }
                continue;
            }
            Seen before = seen.get(lease.shard());
            Seen since = before != null && sameLease(before.lease(), lease) ? before : new Seen(lease, now);
            others.put(lease.shard(), since);
            if (now - since.nanos() < judgeAfterNanos || sameLease(confirmed.get(lease.shard()), lease)) {
                continue;
            }
            String owner = fenceOwner(lease.shard());
            if (lease.owner().equals(owner)) {
                confirmed.put(lease.shard(), lease);
            } else if (owner != null || storeNamesOwners) {
                reportOtherDatabase(lease);
            }
        }
        confirmed.keySet().retainAll(others.keySet());
        seen = others;
    }

    private void reportOtherDatabase(LeaseInfo lease) {
        ForeignFence foreign = new ForeignFence(
                Objects.requireNonNull(lease.owner()),
                lease.shard(),
                context.clock().now(),
                true);
        context.stats().foreignFence(foreign);
        // one line per member and minute: each of its shards is seen again at every tick
        if (context.failures()
                        .record(
                                "member of another database: " + lease.owner(),
                                1,
                                context.clock().nanos())
                >= 0) {
            log.log(Level.ERROR, "Task " + context.name() + ": " + foreign.describe(coordinatorKind));
        }
    }

    private @Nullable String fenceOwner(int shard) {
        try {
            return context.store().fenceOwner(context.definition(), shard).orElse(null);
        } catch (RuntimeException e) {
            // the round's own failure handling reports an unreachable database
            return null;
        }
    }

    private record Seen(LeaseInfo lease, long nanos) {}

    private static boolean sameLease(@Nullable LeaseInfo a, LeaseInfo b) {
        return a != null && Objects.equals(a.owner(), b.owner()) && a.epoch() == b.epoch();
    }

    private static boolean isMember(String node, List<Member> members) {
        return members.stream().anyMatch(m -> m.node().equals(node));
    }
}
