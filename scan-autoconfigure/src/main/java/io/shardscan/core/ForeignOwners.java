package io.shardscan.core;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;

/**
 * After a lost shard: who holds its fence now, and whether that node is a member of this node's
 * coordinator. A newer owner that is not is a node of another cluster on the same database (a wrong
 * {@code spring.data.redis.*} or {@code scan.coordinator}): both clusters run the shard's rows, so it
 * is logged at ERROR, counted and shown in the health. Checked on the control thread at the next
 * tick, with the members that tick read: a node of this cluster heartbeats before it claims.
 */
final class ForeignOwners {

    private static final System.Logger log = ScanLogging.getLogger(ForeignOwners.class);

    private final TaskContext context;
    private final String nodeId;
    private final String coordinatorKind;
    private final Queue<Integer> lost = new ConcurrentLinkedQueue<>();

    ForeignOwners(TaskContext context, String nodeId, String coordinatorKind) {
        this.context = context;
        this.nodeId = nodeId;
        this.coordinatorKind = coordinatorKind;
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

    private static boolean isMember(String node, List<Member> members) {
        return members.stream().anyMatch(m -> m.node().equals(node));
    }
}
