package io.shardscan.actuate;

import io.shardscan.core.ForeignFence;
import io.shardscan.core.RangeView;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.SlowStatement;
import io.shardscan.core.TaskView;
import io.shardscan.core.spi.RangeSnapshot;
import io.shardscan.core.spi.ShardCountConflict;
import io.shardscan.core.spi.TaskRun;
import io.shardscan.core.spi.UnfetchableRows;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * The scan engine's health on this node, from what its lease keepers and rounds last saw (no query
 * of its own): DOWN when a task's coordinator or database could not be reached, so this node
 * processes nothing of it, or when in the last five minutes a node that is not a member of this
 * node's coordinator took one of its shards' fences (two clusters on one database run the same rows), or
 * when this node runs another shard count than the nodes holding the task's leases and so claims no
 * shard ({@code shardCountConflict} names both counts, the members and the fix); UNKNOWN while some shard has no live owner (a failover or rebalance in
 * progress) or while a statement of a task's rounds has run longer than {@code scan.lease-ttl}
 * ({@code slowStatement} names its kind, the table and what to check), or while its last statement
 * cancelled for running past twice {@code scan.lease-ttl} shows ({@code statementTimedOut}, until one of its kind
 * succeeds); UP when every task is reachable and every shard owned. A paused task is a detail
 * ({@code state: PAUSED}), never a status, and so is a task whose run is done ({@code state: DONE},
 * {@code run: until-empty}), whatever it last saw: the indicator sits in the web node's health, and a
 * load balancer must not drop the node because a background task was paused or finished. Details per task.
 * Range tasks ({@code mode: range}) are listed under {@code ranges}: a DONE run is UP; a run that has not
 * moved for its stall timeout with ids left is UNKNOWN, with a {@code stalledCause} that names the cause
 * and what to check; so is a run that is not done while the last statement of its workers or control
 * thread cancelled for running past twice {@code scan.lease-ttl} shows ({@code statementTimedOut}: its
 * kind, such as a page read or a position commit, the table and the fix; until one of its kind succeeds).
 */
public class ScanHealthIndicator extends AbstractHealthIndicator {

    private final ScanEngine engine;

    public ScanHealthIndicator(ScanEngine engine) {
        super("Scan health check failed");
        this.engine = engine;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        try {
            check(builder);
        } catch (RuntimeException | LinkageError e) {
            // AbstractHealthIndicator catches Exceptions only: an Error (a class gone from a replaced
            // jar) would answer /actuator/health with a 500 instead of a status
            builder.down()
                    .withDetail("node", engine.nodeId())
                    .withDetail(
                            "error",
                            e
                                    + (e instanceof LinkageError
                                            ? " (a class the node loaded is gone or changed: was the application's jar"
                                                    + " replaced while it ran? Restart the node)"
                                            : ""));
        }
    }

    private void check(Health.Builder builder) {
        Status status = Status.UP;
        Map<String, Object> tasks = new LinkedHashMap<>();
        for (String name : engine.taskNames()) {
            TaskView task = engine.task(name);
            int shards = task.definition().shards();
            // leases of shards past this node's count (another count's) are no shard of its own; in a
            // split, a shard is held while any shard of its parent is (the parent's or a child's lease)
            boolean split = task.splitParents() > 0;
            int parents = split ? task.splitParents() : shards;
            long owned = task.leases().stream()
                    .filter(l -> l.owner() != null && l.shard() >= 0 && (split || l.shard() < shards))
                    .map(l -> l.shard() % parents)
                    .distinct()
                    .count();
            long unowned = (long) (shards / parents) * (parents - owned);
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("state", task.state());
            details.put("pausedEverywhere", task.isPausedEverywhere());
            TaskRun run = task.run();
            if (run != null) {
                details.put("run", run.id());
                details.put("runState", run.state());
            }
            details.put("coordinator", task.coordinatorKind());
            details.put("coordinatorReachable", task.coordinatorReachable());
            details.put("databaseReachable", task.stats().storeReachable());
            details.put("ownedShardsHere", task.ownedShards().size());
            details.put("unownedShards", unowned);
            details.put("members", task.members().size());
            details.put("waitingKeys", task.waitingKeys());
            long abandoned = task.stats().abandonedThreads();
            details.put("abandonedThreads", abandoned);
            if (abandoned > 0) {
                // not DOWN: the task keeps its workers; but a thread per hung call is a leak to fix
                details.put(
                        "abandonedThreadsCause",
                        abandoned + " worker threads are stuck in handler calls that ran past scan.tasks." + name
                                + ".handler-timeout ("
                                + task.definition().rounds().handlerTimeout() + ") or round-timeout ("
                                + task.definition().rounds().timeout() + ") and ignore interrupts; their rows were"
                                + " recorded failed and their workers replaced. Find what blocks them in a thread"
                                + " dump (threads scan-" + name + "-worker-*) and give that call a timeout of its own");
            }
            if (task.definition().endpoints() != null) {
                // not DOWN: a banned receiver is the receiver's problem, the task runs for the others
                details.put(
                        "bannedEndpoints",
                        task.bannedEndpoints().stream().map(b -> b.endpoint()).toList());
            }
            ForeignFence foreign = task.recentForeignFence();
            if (foreign != null) {
                details.put("foreignFenceOwner", foreign.describe(task.coordinatorKind()));
            }
            ShardCountConflict conflict = task.shardCountConflict();
            if (conflict != null) {
                details.put("shardCountConflict", conflict.describe(name));
            }
            UnfetchableRows unfetchable = task.unfetchableRows();
            if (unfetchable.any()) {
                // not DOWN: the task runs its other rows; these never run until someone fixes them
                details.put("unfetchableRows", unfetchable.describe(task.definition()));
            }
            SlowStatement slow = task.slowStatement();
            if (slow != null) {
                details.put("slowStatement", slow.describe(engine.settings().leaseTtl()));
            }
            String timedOut = task.statementTimedOut();
            if (timedOut != null) {
                details.put("statementTimedOut", timedOut);
            }
            tasks.put(name, details);
            status = worse(status, statusOf(task, unowned, foreign, conflict));
            if ((slow != null || timedOut != null) && task.state() != TaskView.State.DONE) {
                // UNKNOWN, not DOWN: the node serves its requests; this task waits on its table
                status = worse(status, Status.UNKNOWN);
            }
        }
        builder.status(status).withDetail("node", engine.nodeId()).withDetail("tasks", tasks);
        Map<String, Object> ranges = new LinkedHashMap<>();
        for (String name : engine.rangeTaskNames()) {
            RangeView view = engine.rangeTask(name);
            RangeSnapshot s = view.snapshot();
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("state", s.run().state());
            details.put("run", s.run().id());
            details.put("percent", Math.round(s.percent() * 10) / 10.0);
            details.put("processed", s.progress().processed());
            details.put("failed", s.progress().failed());
            Duration stallTimeout = view.task().stallTimeout();
            if (s.stalled(stallTimeout)) {
                // UNKNOWN, not DOWN: the node serves its requests; the job does not move
                details.put(
                        "stalledCause",
                        "run " + s.run().id() + " of " + name + " has not moved for "
                                + s.sinceProgress().toSeconds() + " s, longer than scan.tasks." + name
                                + ".stall-timeout (" + stallTimeout + "), with " + (100 - Math.round(s.percent()))
                                + "% of its ids left: no range committed a position, though stalled ranges are taken"
                                + " over. Find what blocks the handler in a thread dump (threads scan-" + name
                                + "-range-worker-*), look for 'range scan failed' in the nodes' logs, and check that"
                                + " some node runs the task and reaches the database");
                status = worse(status, Status.UNKNOWN);
            }
            String timedOut = view.statementTimedOut();
            if (timedOut != null) {
                details.put("statementTimedOut", timedOut);
                if (!s.run().done()) {
                    // UNKNOWN, not DOWN: the node serves its requests; this job waits on a table
                    status = worse(status, Status.UNKNOWN);
                }
            }
            ranges.put(name, details);
        }
        if (!ranges.isEmpty()) {
            builder.status(status).withDetail("ranges", ranges);
        }
    }

    private static Status statusOf(
            TaskView task, long unowned, @Nullable ForeignFence foreign, @Nullable ShardCountConflict conflict) {
        if (task.state() == TaskView.State.DONE) {
            return Status.UP;
        }
        if (!task.coordinatorReachable() || !task.stats().storeReachable() || foreign != null || conflict != null) {
            return Status.DOWN;
        }
        return unowned > 0 ? Status.UNKNOWN : Status.UP;
    }

    /** DOWN before UNKNOWN before UP. */
    private static Status worse(Status a, Status b) {
        return rank(b) > rank(a) ? b : a;
    }

    private static int rank(Status status) {
        if (status.equals(Status.DOWN)) {
            return 2;
        }
        return status.equals(Status.UNKNOWN) ? 1 : 0;
    }
}
