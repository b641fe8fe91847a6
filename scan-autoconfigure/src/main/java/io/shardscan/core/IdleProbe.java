package io.shardscan.core;

import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Checks the idle shards of one task on this node together, so that a node with nothing to do
 * costs the database one statement per tier interval, whatever its number of shards: a tier whose
 * last fetch in a shard came back empty ({@link TierCursor#idle}) is not fetched again; once such a
 * tier is due in any idle shard, one {@link TaskStore#dueShards} asks which of all the idle shards
 * of that tier have a due row, with the same conditions as the tier's first page. Shards with a row
 * get a round at once; the others rest for the tier's interval, so the idle shards of a tier stay
 * due together. A shard may be asked before its own interval ran out, which costs nothing: whether
 * a failed row is due is decided by its own last failure, a delayed row's by its due time. Busy
 * shards, triggered ones (a wake-up, a new run, a requeue) and those whose last page had rows fetch
 * directly. Runs on the task's dispatcher thread only, and only over shards that are
 * {@link OwnedShard.State#IDLE}, whose cursors no round touches meanwhile.
 */
final class IdleProbe {

    private static final System.Logger log = ScanLogging.getLogger(IdleProbe.class);

    private final TaskContext task;

    IdleProbe(TaskContext task) {
        this.task = task;
    }

    /** Probes each tier that is due in some idle shard of {@code shards}: one statement per such tier. */
    void run(List<OwnedShard> shards) {
        List<Tier> tiers = task.definition().tiers();
        for (int index = 0; index < tiers.size(); index++) {
            Instant now = task.clock().now();
            long nanos = task.clock().nanos();
            List<OwnedShard> idle = new ArrayList<>();
            boolean due = false;
            for (OwnedShard shard : shards) {
                TierCursor cursor = shard.cursor(index);
                if (cursor.idle && shard.state() == OwnedShard.State.IDLE && shard.canDispatch(nanos)) {
                    idle.add(shard);
                    due |= !cursor.nextRunAt.isAfter(now);
                }
            }
            if (due) {
                probe(index, tiers.get(index), idle, now);
            }
        }
    }

    private void probe(int index, Tier tier, List<OwnedShard> shards, Instant now) {
        EndpointBlacklist endpoints = task.endpoints();
        List<String> excluded = endpoints == null ? List.of() : endpoints.excluded();
        List<FetchRequest> requests = new ArrayList<>(shards.size());
        for (OwnedShard shard : shards) {
            shard.cursor(index).fetching();
            requests.add(task.rules().fetch(shard.shard, tier, now, null, Long.MIN_VALUE, 1, excluded));
        }
        try {
            Set<Integer> found = new HashSet<>(task.store().dueShards(task.definition(), requests));
            task.stats().storeReached(true);
            task.stats().probed(found.size());
            Instant after = task.clock().now();
            for (OwnedShard shard : shards) {
                shard.cursor(index).probed(found.contains(shard.shard), after);
            }
        } catch (RuntimeException | Error e) {
            // an Error too (a class missing from a replaced jar): it must not end the dispatcher's thread
            task.stats().storeReached(!StoreFailure.unreachable(e));
            logFailure(tier, shards.size(), e);
            Instant retry = task.clock().now().plusSeconds(1);
            shards.forEach(shard -> shard.cursor(index).retryAt(retry));
        }
    }

    /** As a failed round: WARN the first time its kind is seen, then at most once a minute. */
    private void logFailure(Tier tier, int shards, Throwable e) {
        long suppressed = task.failures()
                .record("probe: " + FailureLog.kindOf(e), 1, task.clock().nanos());
        String message = "Task " + task.name() + ": the probe of tier " + tier.label() + " over " + shards
                + " idle shards failed; they are probed again in 1 s: " + e;
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
