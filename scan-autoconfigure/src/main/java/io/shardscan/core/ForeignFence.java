package io.shardscan.core;

import java.time.Duration;
import java.time.Instant;

/**
 * A shard two clusters both run. Either this node was fenced off from it by a node that is not a
 * member of this node's coordinator (two clusters share the database but not their coordinator), or
 * ({@code otherDatabase}) a member of this node's coordinator holds its lease but never raised its
 * fence in this database (two clusters share the coordinator's keys but not the database, so this
 * database's rows of that member's shards are never run).
 *
 * @param node the node holding the shard's fence (or, with {@code otherDatabase}, its lease) now
 * @param shard the shard
 * @param at when this node saw it (engine clock)
 * @param otherDatabase whether the node is a member of this node's coordinator working on another database
 */
public record ForeignFence(String node, int shard, Instant at, boolean otherDatabase) {

    /** How long after the last one the health shows it: the two clusters fence each other off every few rounds. */
    public static final Duration SHOWN_FOR = Duration.ofMinutes(5);

    /** A fence taken by a node that is not a member of this node's coordinator. */
    public ForeignFence(String node, int shard, Instant at) {
        this(node, shard, at, false);
    }

    /** What was seen, what it does and the fix, as the log and the health say it. */
    public String describe(String coordinatorKind) {
        if (otherDatabase) {
            return "node " + node + " holds shard " + shard + " in this node's coordinator (" + coordinatorKind
                    + ") but has not raised the shard's fence in this database: it runs another database's rows,"
                    + " and this database's rows of its shards are never run. Two applications on different"
                    + " databases share the coordinator's keys: give them different scan.redis.namespace values"
                    + " (by default spring.application.name and the database's URL set them apart)";
        }
        return "node " + node + " took shard " + shard + "'s fence at " + at + " but is not a member of this node's"
                + " coordinator (" + coordinatorKind + "); both run the same rows: " + cause(coordinatorKind);
    }

    /**
     * What a foreign fence means under the coordinator of kind {@code coordinatorKind}, and the fix:
     * with static sharding, nodes that share a {@code scan.node-index} or disagree on
     * {@code scan.node-count}; otherwise two clusters on one database with different coordinators.
     */
    public static String cause(String coordinatorKind) {
        if ("static".equals(coordinatorKind)) {
            return "two nodes own the same shard under static sharding: two nodes share a scan.node-index, or their"
                    + " scan.node-count differs (or another cluster shares this database). Give every node its own"
                    + " scan.node-index in 0..count-1 and the same scan.node-count";
        }
        return "two clusters share this database but not their coordinator. Check spring.data.redis.* and"
                + " scan.coordinator on every node, so that all nodes of the task use one coordinator";
    }

    /** Whether it was seen less than {@link #SHOWN_FOR} before {@code now}. */
    public boolean recent(Instant now) {
        return at.plus(SHOWN_FOR).isAfter(now);
    }
}
