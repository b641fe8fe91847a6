package io.shardscan.core.spi;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A live node of a task.
 *
 * @param node the node id
 * @param lastHeartbeat the coordinator's time of its last heartbeat
 * @param counters the totals it published with that heartbeat, or {@code null} when its coordinator
 *     keeps none (the static one) or it published none
 */
public record Member(
        String node, Instant lastHeartbeat, @Nullable NodeCounters counters) {

    /** A member that published no counters. */
    public Member(String node, Instant lastHeartbeat) {
        this(node, lastHeartbeat, null);
    }
}
