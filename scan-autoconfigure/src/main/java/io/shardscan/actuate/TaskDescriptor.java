package io.shardscan.actuate;

import io.shardscan.core.Backlog;
import io.shardscan.core.TaskStats;
import io.shardscan.core.TaskView;
import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.spi.Member;
import io.shardscan.core.spi.ShardCountConflict;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One task as this node sees it, from what it already holds: the lease view of its last lease tick,
 * the members of its last heartbeat, the cached backlog and its running totals. Immutable.
 *
 * @param state what the task is doing on this node
 * @param coordinator the kind of coordinator: {@code redis}, {@code jdbc} or {@code static}
 * @param shards the number of logical shards
 * @param members the live members, each with the number of shards it owns
 * @param ownership every shard from 0 to {@code shards - 1}; never granted shards have no owner and epoch 0
 * @param backlog the last background count, or {@code null} before the first one
 * @param doneHereSinceStart rows this node marked done since it started (not the task's total: see
 *     {@code backlog} and {@code run} for those)
 * @param failedHereSinceStart failures this node wrote back that left the row pending, since it started
 * @param deadHereSinceStart rows this node marked dead since it started ({@code backlog.dead} counts
 *     the task's dead rows now)
 * @param inFlight rows whose handler runs on this node right now
 * @param waitingKeys keys of this node's shards whose later rows wait for an earlier failed row
 * @param handlerTimeouts handler calls that ran past the handler timeout and were recorded failed
 * @param abandonedThreads worker threads still stuck in such calls (each was replaced)
 * @param leasesLost leases this node lost, each counted once
 * @param writeBacksRefused write-backs the fence refused because a newer owner had the shard
 * @param lastRoundAt when this node last wrote a round back, or {@code null} before the first
 * @param archive what the task archives and what this node archived, or {@code null} when it does not archive
 * @param budget the task's share of this node's worker budget, or {@code null} without {@code scan.max-workers}
 * @param bannedEndpoints for a task with an endpoint column, the endpoints banned at level 2 on every
 *     node, as this node last read them; empty when none
 * @param run the task's current run as this node last read it, or {@code null} for a task that runs forever
 * @param shardCountConflict why this node claims no shard: its {@code shards} differs from the nodes
 *     holding the task's leases (names both counts, the members and the fix); {@code null} when it does not
 * @param schedule the task's schedule, its next and its last firing; {@code null} for a task without one
 * @param rejoinHold while this node holds back after it dropped out of the members and came back
 *     ({@code scan.rejoin-hold}): until when and how often it rejoined; {@code null} when it does not
 * @param shardSplit while nodes of two shard counts, one a multiple of the other, run the task at once
 *     (a rolling change of {@code shards}), which; {@code null} when one count runs
 */
public record TaskDescriptor(
        TaskView.State state,
        String coordinator,
        int shards,
        List<MemberDescriptor> members,
        List<ShardDescriptor> ownership,
        @Nullable BacklogDescriptor backlog,
        long doneHereSinceStart,
        long failedHereSinceStart,
        long deadHereSinceStart,
        long inFlight,
        int waitingKeys,
        long handlerTimeouts,
        long abandonedThreads,
        long leasesLost,
        long writeBacksRefused,
        @Nullable Instant lastRoundAt,
        @Nullable ArchiveDescriptor archive,
        @Nullable BudgetDescriptor budget,
        List<EndpointBanDescriptor> bannedEndpoints,
        @Nullable RunDescriptor run,
        @Nullable String shardCountConflict,
        @Nullable ScheduleDescriptor schedule,
        @Nullable RejoinHoldDescriptor rejoinHold,
        @Nullable String shardSplit) {

    public TaskDescriptor {
        members = List.copyOf(members);
        ownership = List.copyOf(ownership);
        bannedEndpoints = List.copyOf(bannedEndpoints);
    }

    /** Describes {@code task} with its cached {@code backlog}; runs no query. */
    static TaskDescriptor of(TaskView task, @Nullable Backlog backlog) {
        int shards = task.definition().shards();
        List<LeaseInfo> leases = task.leases();
        TaskStats stats = task.stats();
        return new TaskDescriptor(
                task.state(),
                task.coordinatorKind(),
                shards,
                members(task.members(), leases),
                ownership(shards, leases),
                backlog == null ? null : BacklogDescriptor.of(backlog),
                stats.processed(),
                stats.failed(),
                stats.dead(),
                stats.inFlight(),
                task.waitingKeys(),
                stats.handlerTimeouts(),
                stats.abandonedThreads(),
                stats.leasesLost(),
                stats.writeBacksRefused(),
                stats.lastRoundAt(),
                ArchiveDescriptor.of(task.definition().archive(), stats),
                task.budgeted() ? BudgetDescriptor.of(task) : null,
                task.bannedEndpoints().stream().map(EndpointBanDescriptor::of).toList(),
                RunDescriptor.of(task.runMode(), task.run(), task.runDuration()),
                shardCountConflict(task),
                ScheduleDescriptor.of(task.schedule()),
                RejoinHoldDescriptor.of(task.rejoinHold()),
                shardSplit(task));
    }

    private static @Nullable String shardSplit(TaskView task) {
        int parents = task.splitParents();
        return parents == 0
                ? null
                : "nodes of " + parents + " and of " + task.splitInto() + " shards run at once: shard s of " + parents
                        + " is held whole by a node of " + parents + " or as its children s, s + " + parents
                        + ", ... by one of " + task.splitInto();
    }

    private static @Nullable String shardCountConflict(TaskView task) {
        ShardCountConflict conflict = task.shardCountConflict();
        return conflict == null ? null : conflict.describe(task.definition().name());
    }

    private static List<MemberDescriptor> members(List<Member> members, List<LeaseInfo> leases) {
        Map<String, Integer> owned = new HashMap<>();
        for (LeaseInfo lease : leases) {
            if (lease.owner() != null) {
                owned.merge(lease.owner(), 1, Integer::sum);
            }
        }
        return members.stream()
                .map(m -> new MemberDescriptor(
                        m.node(), m.lastHeartbeat(), owned.getOrDefault(m.node(), 0), m.counters()))
                .toList();
    }

    private static List<ShardDescriptor> ownership(int shards, List<LeaseInfo> leases) {
        List<ShardDescriptor> ownership = new ArrayList<>(shards);
        for (int shard = 0; shard < shards; shard++) {
            ownership.add(ShardDescriptor.free(shard));
        }
        for (LeaseInfo lease : leases) {
            if (lease.shard() >= 0 && lease.shard() < shards) {
                ownership.set(lease.shard(), ShardDescriptor.of(lease));
            }
        }
        return ownership;
    }
}
