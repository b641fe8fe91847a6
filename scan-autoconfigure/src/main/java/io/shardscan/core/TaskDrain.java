package io.shardscan.core;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Drives one task until it is quiet, for an application's tests: makes every tier of every shard
 * this node holds due now, waits until each ended a pass begun after that (not one that read the
 * table before), and repeats until a round of passes
 * handled no row (a key let go, say, makes its rows due again). Rows that fail meanwhile wait for
 * their tier's interval as always, so a drain never waits for an interval.
 */
final class TaskDrain {

    private final TaskContext context;
    private final Supplier<Collection<OwnedShard>> owned;
    private final Runnable trigger;

    TaskDrain(TaskContext context, Supplier<Collection<OwnedShard>> owned, Runnable trigger) {
        this.context = context;
        this.owned = owned;
        this.trigger = trigger;
    }

    /**
     * @return the rows handled meanwhile (done, failed or dead)
     * @throws IllegalStateException when the task holds no shard, or is not quiet, by the deadline
     */
    long run(long deadlineNanos) {
        TaskStats stats = context.stats();
        long before = handled(stats);
        while (true) {
            long start = handled(stats);
            Map<OwnedShard, long[]> passes = new HashMap<>();
            while (passes.isEmpty()) {
                owned.get().forEach(shard -> passes.put(shard, shard.passesBegun()));
                if (passes.isEmpty()) {
                    // just started: the first lease tick is claiming the shards
                    waitUntil(
                            deadlineNanos, "held no shard (is the engine started, and another node holding them all?)");
                }
            }
            trigger.run();
            while (!passesEndedSince(passes)) {
                waitUntil(deadlineNanos, "was still busy, " + (handled(stats) - before) + " rows handled so far");
            }
            if (handled(stats) == start) {
                return handled(stats) - before;
            }
        }
    }

    private void waitUntil(long deadlineNanos, String state) {
        if (context.clock().nanos() - deadlineNanos >= 0) {
            throw new IllegalStateException("task " + context.name() + " " + state + " when the drain's time was up");
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }

    private static long handled(TaskStats stats) {
        return stats.processed() + stats.failed() + stats.dead();
    }

    /** Whether every tier of every shard still held ended a pass after {@code passes} were read, and rests. */
    private static boolean passesEndedSince(Map<OwnedShard, long[]> passes) {
        for (Map.Entry<OwnedShard, long[]> entry : passes.entrySet()) {
            OwnedShard shard = entry.getKey();
            OwnedShard.State state = shard.state();
            if (state == OwnedShard.State.GONE) {
                continue;
            }
            if (state != OwnedShard.State.IDLE || shard.stragglers().size() > 0) {
                return false;
            }
            long[] now = shard.passesEnded();
            for (int i = 0; i < now.length; i++) {
                if (now[i] <= entry.getValue()[i]) {
                    return false;
                }
            }
        }
        return true;
    }
}
