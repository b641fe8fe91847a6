package io.shardscan.core;

import java.time.Instant;

/**
 * A live node of a task.
 *
 * @param node the node id
 * @param lastHeartbeat the coordinator's time of its last heartbeat
 */
public record Member(String node, Instant lastHeartbeat) {}
