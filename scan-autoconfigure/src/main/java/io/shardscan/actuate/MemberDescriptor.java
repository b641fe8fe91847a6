package io.shardscan.actuate;

import java.time.Instant;

/**
 * A live member of a task as this node last saw it. Immutable.
 *
 * @param node the member's node id
 * @param lastHeartbeat the coordinator's time of its last heartbeat
 * @param ownedShards how many shards it held at this node's last lease tick
 */
public record MemberDescriptor(String node, Instant lastHeartbeat, int ownedShards) {}
