package io.shardscan.core.spi;

import java.util.List;

/**
 * This node runs a task with another shard count than the nodes whose count the cluster runs, so it
 * claims no shard of the task: shard {@code s} of one count covers other rows than shard {@code s} of
 * the other, and both counts at once would run rows twice. Lasts until every live node runs one count
 * (a rolling change of {@code scan.tasks.X.shards} finished, or the same value set everywhere).
 * Immutable.
 *
 * @param here the shard count of this node
 * @param cluster the shard count the cluster runs
 * @param members the live members that run {@code cluster}, sorted by node id
 */
public record ShardCountConflict(int here, int cluster, List<String> members) {

    public ShardCountConflict {
        members = List.copyOf(members);
    }

    /** What to tell an operator, for {@code task}. */
    public String describe(String task) {
        return "scan.tasks." + task + ".shards is " + here + " on this node but " + cluster + " on members " + members
                + "; this node claims no shard until every node runs the same count: finish the rolling change or"
                + " set the same value everywhere";
    }
}
