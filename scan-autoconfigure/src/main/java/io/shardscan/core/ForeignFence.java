package io.shardscan.core;

import java.time.Duration;
import java.time.Instant;

/**
 * A shard this node was fenced off from by a node that is not a member of this node's coordinator:
 * two clusters share the database but not their coordinator, and both run the shard's rows.
 *
 * @param node the node holding the shard's fence now
 * @param shard the shard
 * @param at when this node saw it (engine clock)
 */
public record ForeignFence(String node, int shard, Instant at) {

    /** How long after the last one the health shows it: the two clusters fence each other off every few rounds. */
    public static final Duration SHOWN_FOR = Duration.ofMinutes(5);

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
