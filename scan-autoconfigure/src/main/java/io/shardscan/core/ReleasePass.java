package io.shardscan.core;

import io.shardscan.core.spi.ShardCoordinator;
import java.lang.System.Logger.Level;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * One pass of lease releases: a lease tick's handovers, or everything a task gives up when it
 * stops. Once a release fails, the coordinator is not called again in this pass: the other shards
 * are left to expire, which their leases do within {@code scan.lease-ttl} by themselves, and the
 * fence epoch keeps a late writer out meanwhile. A failing coordinator therefore costs a pass one
 * call (one client timeout), not one per shard. {@link #report} logs what was left, in one line.
 * Thread-safe.
 */
final class ReleasePass {

    private static final System.Logger log = ScanLogging.getLogger(ReleasePass.class);

    private final TaskContext context;
    private final ShardCoordinator coordinator;
    private final EngineSettings settings;
    private final Set<Integer> leftToExpire = new TreeSet<>();
    private @Nullable String cause;
    private boolean reported;
    private boolean leftMembers = true;

    ReleasePass(TaskContext context, ShardCoordinator coordinator, EngineSettings settings) {
        this.context = context;
        this.coordinator = coordinator;
        this.settings = settings;
    }

    /**
     * Releases {@code shard} unless a release of this pass failed before.
     *
     * @return whether the coordinator released it (or found it no longer this node's)
     */
    boolean release(int shard, long leaseEpoch) {
        synchronized (this) {
            if (cause != null) {
                leftToExpire.add(shard);
                return false;
            }
        }
        try {
            coordinator.release(context.name(), shard, settings.nodeId(), leaseEpoch);
            return true;
        } catch (RuntimeException e) {
            leftToExpire(Set.of(shard), "its release of shard " + shard + " failed: " + e);
            return false;
        }
    }

    /** Leaves the members, unless a call of this pass failed: then the node drops out after scan.member-timeout. */
    void leave() {
        synchronized (this) {
            if (cause != null) {
                leftMembers = false;
                return;
            }
        }
        try {
            coordinator.leave(context.name(), settings.nodeId());
        } catch (RuntimeException e) {
            synchronized (this) {
                leftMembers = false;
            }
            leftToExpire(Set.of(), "leaving the members failed: " + e);
        }
    }

    /** Records {@code shards} as left to expire, and {@code why} as the cause unless one is known. */
    synchronized void leftToExpire(Collection<Integer> shards, String why) {
        leftToExpire.addAll(shards);
        if (cause == null) {
            cause = why;
        }
    }

    /** The stop gave up waiting: {@code shards}, and leaving the members, are left to expire. */
    synchronized void gaveUp(Collection<Integer> shards, String why) {
        leftMembers = false;
        leftToExpire(shards, why);
    }

    /** Whether a call of this pass failed, so no more are made. */
    synchronized boolean failed() {
        return cause != null;
    }

    /** Logs, once, one WARN naming the shards left to expire and why; nothing when every call succeeded. */
    void report() {
        String line;
        synchronized (this) {
            if (cause == null || reported) {
                return;
            }
            reported = true;
            line = "Task " + context.name() + ": " + cause + "; "
                    + (leftToExpire.isEmpty()
                            ? "no lease was left to release"
                            : "the leases of shards " + leftToExpire + " are left to expire within scan.lease-ttl ("
                                    + settings.leaseTtl() + "), the coordinator is not called again for them")
                    + (leftMembers ? "" : "; this node drops out of the members after scan.member-timeout");
        }
        log.log(Level.WARNING, line);
    }
}
