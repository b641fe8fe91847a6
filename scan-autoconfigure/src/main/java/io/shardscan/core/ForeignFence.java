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

    /** Whether it was seen less than {@link #SHOWN_FOR} before {@code now}. */
    public boolean recent(Instant now) {
        return at.plus(SHOWN_FOR).isAfter(now);
    }
}
