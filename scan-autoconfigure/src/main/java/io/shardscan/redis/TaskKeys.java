package io.shardscan.redis;

/**
 * The keys of one task in one namespace: {@code scan:{namespace/task}:...}, or {@code scan:{task}:...}
 * in the empty namespace. The braces are a Redis Cluster hash tag: every key of a task lands in one
 * slot, so a script may touch several of them. The namespace keeps apart applications that share a
 * Redis and a task name but not a database (see {@code scan.redis.namespace}).
 */
record TaskKeys(String namespace, String task) {

    TaskKeys {
        // "{}" would not be a hash tag: the keys of the task would spread over the cluster's slots
        if (task.isEmpty()) {
            throw new IllegalArgumentException("The task name must not be empty");
        }
        if (namespace.indexOf('{') >= 0 || namespace.indexOf('}') >= 0) {
            throw new IllegalArgumentException(
                    "A Redis namespace must not contain '{' or '}' (they end the" + " keys' hash tag): " + namespace);
        }
    }

    /** The keys of {@code task} in the empty namespace. */
    TaskKeys(String task) {
        this("", task);
    }

    /** The lease of a shard: a string "epoch:node" that expires with the lease (PX). */
    String lease(int shard) {
        return prefix() + "lease:" + shard;
    }

    /** The counter every grant of the task takes its epoch from. */
    String epoch() {
        return prefix() + "epoch";
    }

    /** A hash of shard to its last granted epoch: also the list of the shards ever granted. */
    String epochs() {
        return prefix() + "epochs";
    }

    /** A sorted set of the members scored by their last heartbeat, in ms of the server's clock. */
    String members() {
        return prefix() + "members";
    }

    /** A hash of each member's latest published counters ({@code NodeCounters.encode()}), by node id. */
    String memberCounters() {
        return prefix() + "member-counters";
    }

    /** A sorted set of an endpoint's level-1 trips, scored by trip time in ms of the server's clock. */
    String endpointTrips(String endpoint) {
        return prefix() + "endpoint-trips:" + endpoint;
    }

    /** A hash of the task's banned endpoints to "since|until|last error", times in ms of the server's clock. */
    String endpointBans() {
        return prefix() + "endpoint-bans";
    }

    /** The cursor of a range task's run: the next offset to claim, moved on by {@code INCRBY}. */
    String rangeCursor(long run) {
        return prefix() + "range-cursor:" + run;
    }

    /** The pub/sub channel of the task's wake-ups; a message is the shard numbers, comma-separated. */
    String wake() {
        return prefix() + "wake";
    }

    private String prefix() {
        return namespace.isEmpty() ? "scan:{" + task + "}:" : "scan:{" + namespace + "/" + task + "}:";
    }
}
