package io.shardscan.core;

import io.shardscan.core.spi.ShardCoordinator;
import java.lang.System.Logger.Level;
import org.jspecify.annotations.Nullable;

/**
 * Whether one task's coordinator answers, from its two kinds of calls: the task's lease tick
 * (membership, claims, handovers) and the node's lease renewals ({@link LeaseRenewals}). Reachable
 * while both answer; the change is logged once each way, the WARN naming the first call that
 * failed, and whether the leases lapse (a renewal failed) or only claims and handovers wait (the
 * tick did). Thread-safe.
 */
final class Reachability {

    private static final System.Logger log = ScanLogging.getLogger(LeaseKeeper.class);

    private final String task;
    private final String coordinator;
    private @Nullable String tickFailure;
    private @Nullable String renewalFailure;
    private volatile boolean reachable = true;

    /** @param coordinator where the coordinator is ({@link ShardCoordinator#location()}), named in the WARN */
    Reachability(String task, String coordinator) {
        this.task = task;
        this.coordinator = coordinator;
    }

    boolean reachable() {
        return reachable;
    }

    /** The task's lease tick answered ({@code failure} null) or failed with {@code failure}. */
    synchronized void tick(@Nullable String failure) {
        tickFailure = failure;
        update(failure);
    }

    /** The node's lease renewal answered ({@code failure} null) or failed with {@code failure}. */
    synchronized void renewal(@Nullable String failure) {
        renewalFailure = failure;
        update(failure);
    }

    private void update(@Nullable String cause) {
        boolean now = tickFailure == null && renewalFailure == null;
        if (now == reachable) {
            return;
        }
        reachable = now;
        if (now) {
            log.log(Level.INFO, "Task " + task + ": coordinator reachable again (" + coordinator + ")");
        } else if (renewalFailure != null) {
            log.log(
                    Level.WARNING,
                    "Task " + task + ": coordinator unreachable (" + coordinator
                            + "), leases lapse and this node stops dispatching until" + " it returns: " + cause);
        } else {
            log.log(
                    Level.WARNING,
                    "Task " + task + ": coordinator unreachable (" + coordinator
                            + "), this node claims and hands over no shard until it"
                            + " returns (its leases are kept while their renewals go through): " + cause);
        }
    }
}
