package io.shardscan.core;

import io.shardscan.core.spi.NodeCounters;
import io.shardscan.core.task.EndpointDownClassifier;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Node-wide engine settings. Immutable.
 *
 * @param nodeId this node's id among the members
 * @param leaseTtl how long a lease lives without renewal
 * @param renewInterval how often leases are renewed and membership is read
 * @param memberTimeout how long a silent member stays in the live set
 * @param shutdownTimeout how long shutdown waits for running rounds
 * @param maxWorkers the handler threads all tasks of this node share, each task still within its own
 *     {@code workers}; {@code null} for no node-wide budget (each task has only its own workers)
 * @param workerThreads the threads the handlers run on
 * @param endpointDown which handler failures are the receiver's fault ({@link EndpointDownClassifier#DEFAULT},
 *     or that and the application's)
 * @param nodeWeight this node's weight in every task's assignment, 1 to {@link NodeCounters#MAX_WEIGHT}:
 *     a node of weight 2 takes twice the shards of a node of weight 1 (published with its heartbeat)
 * @param rejoinDamping how long this node holds back after it dropped out of a task's members and came
 *     back ({@code scan.rejoin-hold}); the shorter constructors leave it {@link RejoinDamping#OFF}
 */
public record EngineSettings(
        String nodeId,
        Duration leaseTtl,
        Duration renewInterval,
        Duration memberTimeout,
        Duration shutdownTimeout,
        @Nullable Integer maxWorkers,
        WorkerThreads workerThreads,
        EndpointDownClassifier endpointDown,
        int nodeWeight,
        RejoinDamping rejoinDamping) {

    /**
     * The shortest renew interval: every task's leases and membership are written that often, so a
     * number meant as seconds but read as milliseconds would write the coordinator hundreds of times a
     * second. Not refused here but by {@link #belowFloor}, so that startup still reports every other
     * problem with it.
     */
    public static final Duration MIN_RENEW_INTERVAL = Duration.ofMillis(100);

    public EngineSettings {
        Objects.requireNonNull(nodeId, "nodeId");
        Objects.requireNonNull(workerThreads, "workerThreads");
        Objects.requireNonNull(endpointDown, "endpointDown");
        Objects.requireNonNull(rejoinDamping, "rejoinDamping");
        if (nodeId.isBlank()) {
            throw new IllegalArgumentException("scan.node-id must not be blank");
        }
        requirePositive("scan.lease-ttl", leaseTtl);
        requirePositive("scan.renew-interval", renewInterval);
        requirePositive("scan.member-timeout", memberTimeout);
        requirePositive("scan.shutdown-timeout", shutdownTimeout);
        if (renewInterval.multipliedBy(2).compareTo(leaseTtl) > 0) {
            throw new IllegalArgumentException("scan.renew-interval (" + renewInterval + ") must be at most half of"
                    + " scan.lease-ttl (" + leaseTtl + ") so that one lost renewal does not lose the lease");
        }
        if (nodeWeight < 1 || nodeWeight > NodeCounters.MAX_WEIGHT) {
            throw new IllegalArgumentException("scan.node-weight must be between 1 and " + NodeCounters.MAX_WEIGHT
                    + " (was " + nodeWeight + "): a node of weight 2 takes twice the shards of a node of weight 1");
        }
        if (maxWorkers != null && maxWorkers < 1) {
            throw new IllegalArgumentException("scan.max-workers must be at least 1 (was " + maxWorkers + "): set it"
                    + " to the handler threads all tasks of this node share, e.g. 16, or remove it for no node-wide"
                    + " budget");
        }
    }

    /** The problem of a renew interval below {@link #MIN_RENEW_INTERVAL}; {@code null} when there is none. */
    public static @Nullable String belowFloor(Duration renewInterval) {
        return renewInterval.compareTo(MIN_RENEW_INTERVAL) < 0
                ? "scan.renew-interval is " + renewInterval.toMillis() + "ms, below the floor of "
                        + MIN_RENEW_INTERVAL.toMillis() + "ms: write it with a unit, e.g. 2s (a number without a unit"
                        + " means seconds)"
                : null;
    }

    /** Settings without rejoin damping. */
    public EngineSettings(
            String nodeId,
            Duration leaseTtl,
            Duration renewInterval,
            Duration memberTimeout,
            Duration shutdownTimeout,
            @Nullable Integer maxWorkers,
            WorkerThreads workerThreads,
            EndpointDownClassifier endpointDown,
            int nodeWeight) {
        this(
                nodeId,
                leaseTtl,
                renewInterval,
                memberTimeout,
                shutdownTimeout,
                maxWorkers,
                workerThreads,
                endpointDown,
                nodeWeight,
                RejoinDamping.OFF);
    }

    /** Settings of a node of weight 1. */
    public EngineSettings(
            String nodeId,
            Duration leaseTtl,
            Duration renewInterval,
            Duration memberTimeout,
            Duration shutdownTimeout,
            @Nullable Integer maxWorkers,
            WorkerThreads workerThreads,
            EndpointDownClassifier endpointDown) {
        this(
                nodeId,
                leaseTtl,
                renewInterval,
                memberTimeout,
                shutdownTimeout,
                maxWorkers,
                workerThreads,
                endpointDown,
                1);
    }

    /** Settings whose handler failures are classified by {@link EndpointDownClassifier#DEFAULT}. */
    public EngineSettings(
            String nodeId,
            Duration leaseTtl,
            Duration renewInterval,
            Duration memberTimeout,
            Duration shutdownTimeout,
            @Nullable Integer maxWorkers,
            WorkerThreads workerThreads) {
        this(
                nodeId,
                leaseTtl,
                renewInterval,
                memberTimeout,
                shutdownTimeout,
                maxWorkers,
                workerThreads,
                EndpointDownClassifier.DEFAULT);
    }

    /** Settings whose handlers run on platform threads. */
    public EngineSettings(
            String nodeId,
            Duration leaseTtl,
            Duration renewInterval,
            Duration memberTimeout,
            Duration shutdownTimeout,
            @Nullable Integer maxWorkers) {
        this(nodeId, leaseTtl, renewInterval, memberTimeout, shutdownTimeout, maxWorkers, WorkerThreads.PLATFORM);
    }

    /** Settings without a node-wide worker budget. */
    public EngineSettings(
            String nodeId,
            Duration leaseTtl,
            Duration renewInterval,
            Duration memberTimeout,
            Duration shutdownTimeout) {
        this(nodeId, leaseTtl, renewInterval, memberTimeout, shutdownTimeout, null);
    }

    /**
     * How long one coordinator call (a renewal, a release) may wait: a third of the lease TTL, so that a
     * renewal can fail and be tried again before the lease runs out. The one home of that rule: the Redis
     * connection's command timeout, the JDBC coordinator's renewal statement, the connection-pool check
     * and the stop's release time all take it from here.
     */
    public static Duration callTimeout(Duration leaseTtl) {
        return leaseTtl.dividedBy(3);
    }

    /** {@link #callTimeout(Duration)} of this node's lease TTL. */
    public Duration callTimeout() {
        return callTimeout(leaseTtl);
    }

    /**
     * How long one statement of a task's rounds and dispatcher (fetch, probe, write-back, fence, held
     * keys, archive, pause read) may run before the store cancels it: twice {@code scan.lease-ttl}.
     * Past one TTL it already shows as slow (one WARN, the health's {@code slowStatement}); a round
     * that waits a second TTL fails, its rows stay pending and the shard goes on, instead of waiting
     * on a locked table for good (a round waited as long as a 15 s {@code LOCK TABLE} lasted).
     */
    public Duration statementTimeout() {
        return leaseTtl.multipliedBy(2);
    }

    /** When a lease granted or renewed at a monotonic reading must be treated as lost: a margin before expiry. */
    public long deadlineNanos(long grantedAtNanos) {
        Duration margin = leaseTtl.dividedBy(6).compareTo(Duration.ofMillis(200)) < 0
                ? Duration.ofMillis(200)
                : leaseTtl.dividedBy(6);
        return grantedAtNanos + leaseTtl.minus(margin).toNanos();
    }

    private static void requirePositive(String property, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(property + " must be a positive duration (was " + value + ")");
        }
    }
}
