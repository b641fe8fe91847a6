package io.shardscan.actuate;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.shardscan.core.spi.NodeCounters;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A live member of a task as this node last saw it. Immutable.
 *
 * @param node the member's node id
 * @param lastHeartbeat the coordinator's time of its last heartbeat
 * @param ownedShards how many shards it held at this node's last lease tick
 * @param counters the totals it published with that heartbeat (rows done, failed, dead, in flight
 *     there), or {@code null} when its coordinator keeps none
 */
public record MemberDescriptor(
        String node,
        Instant lastHeartbeat,
        int ownedShards,
        @JsonInclude(JsonInclude.Include.ALWAYS) @Nullable NodeCounters counters) {}
