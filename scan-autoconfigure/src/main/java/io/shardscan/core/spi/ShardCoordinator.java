package io.shardscan.core.spi;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Leases and membership shared by every node of a task. Expiry is computed by the backend's own
 * clock, never by comparing two machines' clocks. Every grant takes a new epoch, greater than any
 * epoch granted before for the same shard. Implementations are thread-safe.
 */
public interface ShardCoordinator {

    /**
     * Records that {@code node} is alive for {@code task} and drops members silent for longer than
     * {@code timeout}.
     *
     * @return the live members, sorted by node id; includes {@code node}
     */
    List<Member> heartbeat(String task, String node, Duration timeout);

    /**
     * As {@link #heartbeat(String, String, Duration)}, also recording {@code counters} as the node's
     * latest totals, which every member then reads back in {@link Member#counters()}. The default
     * drops them: a coordinator that keeps none returns members without counters.
     *
     * @return the live members, sorted by node id; includes {@code node}
     */
    default List<Member> heartbeat(String task, String node, Duration timeout, NodeCounters counters) {
        return heartbeat(task, node, timeout);
    }

    /**
     * One renew interval's calls of a node: {@link #heartbeat(String, String, Duration, NodeCounters)},
     * then {@link #renew} of {@code held} (none when empty), then {@link #leases}. The default makes
     * the three calls; a backend that can answers them in one round trip, which is most of what an idle
     * node costs it.
     *
     * @param held shard to epoch of the leases to renew, as granted
     */
    default Tick tick(
            String task,
            String node,
            Duration memberTimeout,
            NodeCounters counters,
            Map<Integer, Long> held,
            Duration ttl) {
        List<Member> members = heartbeat(task, node, memberTimeout, counters);
        List<Integer> renewed = held.isEmpty() ? List.of() : renew(task, node, held, ttl);
        return new Tick(members, renewed, leases(task));
    }

    /**
     * What one {@link #tick} saw.
     *
     * @param members the live members, sorted by node id; includes the node that ticked
     * @param renewed the shards whose lease was extended
     * @param leases who holds what, as {@link #leases} returns it
     */
    record Tick(List<Member> members, List<Integer> renewed, List<LeaseInfo> leases) {}

    /**
     * Grants the shard to {@code node} if it is free or its lease expired.
     *
     * @return the new lease, or empty when another node holds it
     */
    Optional<Lease> tryAcquire(String task, int shard, String node, Duration ttl);

    /**
     * Extends, in one round trip, every lease {@code node} holds with the given epochs.
     *
     * @param leases shard to epoch, as granted
     * @return the shards whose lease was extended; a missing shard is lost and must be fenced off
     */
    List<Integer> renew(String task, String node, Map<Integer, Long> leases, Duration ttl);

    /**
     * One renew interval's renewals of a whole node: extends every lease {@code node} holds, of
     * every task, as {@link #renew} does for one. The default calls {@link #renew} once per task; a
     * backend that can renews them all in one round trip, so that keeping its leases costs a node
     * the same however many tasks it runs, and a backend on a connection pool uses a connection of
     * its own, so that no slow statement of the application or of a round holds the renewals up.
     *
     * @param held task to (shard to epoch, as granted); tasks that hold nothing are left out
     * @return task to the shards whose lease was extended; a held shard missing is lost and must be
     *     fenced off; a task without any may be missing
     */
    default Map<String, List<Integer>> renewAll(String node, Map<String, Map<Integer, Long>> held, Duration ttl) {
        Map<String, List<Integer>> renewed = new HashMap<>();
        held.forEach(
                (task, leases) -> renewed.put(task, leases.isEmpty() ? List.of() : renew(task, node, leases, ttl)));
        return renewed;
    }

    /**
     * One renew interval of a whole node: {@link #renewAll}, and for each task of {@code ticks} what its
     * lease {@link #tick} sends and reads (the heartbeat with its counters, the members, the leases),
     * where the backend can answer them together in one round trip: then a settled node costs it one
     * call per renew interval however many tasks it runs, instead of one per task and one for the
     * renewals. The default renews only and answers no tick.
     *
     * @param held as {@link #renewAll}
     * @param memberTimeout as {@link #tick}
     * @param ticks task to the counters its heartbeat publishes
     * @return the renewals, as {@link #renewAll} returns them, and a tick for each task of {@code ticks}
     *     answered here; a task left out (the default leaves out all, a backend leaves out a task
     *     {@code node} is not a member of) ticks on its own with {@link #tick}
     */
    default NodeTick renewAllAndTick(
            String node,
            Map<String, Map<Integer, Long>> held,
            Duration ttl,
            Duration memberTimeout,
            Map<String, NodeCounters> ticks) {
        return new NodeTick(renewAll(node, held, ttl), Map.of());
    }

    /**
     * What one {@link #renewAllAndTick} did.
     *
     * @param renewed task to the shards whose lease was extended, as {@link #renewAll}
     * @param ticks task to what its tick read; the tasks answered
     */
    record NodeTick(Map<String, List<Integer>> renewed, Map<String, Tick> ticks) {}

    /** Gives the shard up if {@code node} still holds it with {@code epoch}; otherwise does nothing. */
    void release(String task, int shard, String node, long epoch);

    /** Removes {@code node} from the members of {@code task}. */
    void leave(String task, String node);

    /**
     * Who holds what: one entry per shard that has or had a lease.
     *
     * @return the leases, expired ones with a {@code null} owner; empty when none was ever granted
     */
    List<LeaseInfo> leases(String task);

    /** A short name of the kind of coordinator, e.g. {@code redis}, {@code jdbc} or {@code static}. */
    default String kind() {
        return getClass().getSimpleName();
    }

    /**
     * Where this coordinator is, for the WARN that says it cannot be reached, e.g. {@code Redis at
     * cache-1:6379}; the default is its {@link #kind()}.
     */
    default String location() {
        return kind();
    }

    /**
     * The shards {@code node} should hold among the live {@code members}, given who holds what
     * now. The default is the balanced, minimal-movement {@link ShardAssignment}, each member weighted
     * by the weight it published ({@link NodeCounters#weight()}; 1 when it published none), a member
     * that published {@link NodeCounters#holdingBack()} taking no shard the others keep; a static
     * layout overrides it.
     *
     * @param current shard index to its current owner, {@code null} when free
     * @return the shard indexes, ascending; empty when none
     */
    default List<Integer> assign(String node, List<Member> members, String[] current) {
        Map<String, Integer> weights = new HashMap<>();
        Set<String> holdingBack = new HashSet<>();
        members.forEach(m -> {
            weights.put(m.node(), m.counters() == null ? 1 : m.counters().weight());
            if (m.counters() != null && m.counters().holdingBack()) {
                holdingBack.add(m.node());
            }
        });
        return ShardAssignment.shardsOf(node, weights, current, holdingBack);
    }
}
