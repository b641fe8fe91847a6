package io.shardscan.core;

import io.shardscan.core.spi.FetchRequest;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.task.Tier;
import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Checks the idle shards of one task on this node together, so that a node with nothing to do
 * costs the database one statement per first-tier interval, whatever its number of shards and
 * tiers: a tier whose last fetch in a shard came back empty ({@link TierCursor#idle}) is not fetched
 * again; once any tier is due in any idle shard, one {@link TaskStore#dueRequests} asks, for every
 * tier that is due in an idle shard or comes due there within the first tier's interval, which of
 * all the idle shards of that tier have a due row, with the same conditions as the tier's first
 * page. So the slower tiers ride along with the first tier's probe and cost no statement of their
 * own while the first tier is idle too. A tier found with a row is no longer idle and is due at
 * once, also when it was asked early: the row it found is due now. The others rest for the tier's
 * interval, so the idle shards of a tier stay due together. A tier may be asked before its own
 * interval ran out, which costs nothing: whether a failed row is due is decided by its own last
 * failure, a delayed row's by its due time. Busy shards, triggered ones (a wake-up, a new run, a
 * requeue) and those whose last page had rows fetch directly. Runs on the task's dispatcher thread
 * only, and only over shards that are
 * {@link OwnedShard.State#IDLE}, whose cursors no round touches meanwhile.
 */
final class IdleProbe {

    private static final System.Logger log = ScanLogging.getLogger(IdleProbe.class);

    private final TaskContext task;

    IdleProbe(TaskContext task) {
        this.task = task;
    }

    /** The idle shards of one tier that a probe asks about. */
    private record Asked(int index, Tier tier, List<OwnedShard> shards) {}

    /**
     * When some tier is due in an idle shard of {@code shards}, probes it together with every tier
     * that comes due in an idle shard within the first tier's interval: one statement.
     */
    void run(List<OwnedShard> shards) {
        List<Tier> tiers = task.definition().tiers();
        Instant now = task.clock().now();
        long nanos = task.clock().nanos();
        Instant soon = now.plus(tiers.get(0).interval());
        List<Asked> asked = new ArrayList<>();
        boolean due = false;
        for (int index = 0; index < tiers.size(); index++) {
            List<OwnedShard> idle = new ArrayList<>();
            boolean comesDue = false;
            for (OwnedShard shard : shards) {
                TierCursor cursor = shard.cursor(index);
                if (cursor.idle && shard.idle() && shard.canDispatch(nanos)) {
                    idle.add(shard);
                    due |= !cursor.nextRunAt.isAfter(now);
                    comesDue |= !cursor.nextRunAt.isAfter(soon);
                }
            }
            if (comesDue) {
                asked.add(new Asked(index, tiers.get(index), idle));
            }
        }
        if (due) {
            probe(asked);
        }
    }

    private void probe(List<Asked> asked) {
        EndpointBlacklist endpoints = task.endpoints();
        List<String> excluded = endpoints == null ? List.of() : endpoints.excluded();
        List<TierCursor> cursors = new ArrayList<>();
        List<FetchRequest> requests = new ArrayList<>();
        for (Asked tier : asked) {
            for (OwnedShard shard : tier.shards()) {
                TierCursor cursor = shard.cursor(tier.index());
                cursor.fetching();
                cursors.add(cursor);
                requests.add(task.fetch(shard.shard, tier.tier(), null, Long.MIN_VALUE, null, 1, excluded));
            }
        }
        try {
            Set<Integer> found = new HashSet<>(task.store().dueRequests(task.definition(), requests));
            task.stats().storeReached(true);
            task.stats().probed(found.size());
            Instant after = task.clock().now();
            for (int position = 0; position < cursors.size(); position++) {
                cursors.get(position).probed(found.contains(position), after);
            }
        } catch (RuntimeException | Error e) {
            // an Error too (a class missing from a replaced jar): it must not end the dispatcher's thread
            task.stats().storeReached(!StoreFailure.unreachable(e));
            logFailure(asked, e);
            Instant retry = task.clock().now().plusSeconds(1);
            cursors.forEach(cursor -> cursor.retryAt(retry));
        }
    }

    /** As a failed round: WARN the first time its kind is seen, then at most once a minute. */
    private void logFailure(List<Asked> asked, Throwable e) {
        long suppressed = task.failures()
                .record("probe: " + FailureLog.kindOf(e), 1, task.clock().nanos());
        String message = "Task " + task.name() + ": the probe of tier"
                + (asked.size() > 1 ? "s " : " ")
                + asked.stream().map(tier -> tier.tier().label()).collect(Collectors.joining(", "))
                + " over "
                + asked.stream()
                        .flatMap(tier -> tier.shards().stream())
                        .distinct()
                        .count()
                + " idle shards failed; they are probed again in 1 s: " + StoreFailure.describe(e);
        if (suppressed >= 0) {
            log.log(
                    Level.WARNING,
                    message + (suppressed > 0 ? "; and " + suppressed + " more probes failed the same way" : ""),
                    e);
        } else {
            log.log(Level.DEBUG, message);
        }
    }
}
