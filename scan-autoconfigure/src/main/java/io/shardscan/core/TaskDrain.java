package io.shardscan.core;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Drives one task until it is quiet, for an application's tests: once the node holds every shard
 * assigned to it (a node just started claims them over a few lease ticks), makes every tier of
 * every shard this node holds due now, waits until each ended a pass begun after that (not one that read the
 * table before), and repeats until a round of passes
 * handled no row (a key let go, say, makes its rows due again). Rows that fail meanwhile wait for
 * their tier's interval as always, so a drain never waits for an interval.
 */
final class TaskDrain {

    private final TaskContext context;
    private final Supplier<Collection<OwnedShard>> owned;
    private final BooleanSupplier settled;
    private final Runnable trigger;

    TaskDrain(TaskContext context, Supplier<Collection<OwnedShard>> owned, BooleanSupplier settled, Runnable trigger) {
        this.context = context;
        this.owned = owned;
        this.settled = settled;
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
                // just started, or the layout is moving: shards still to claim would be left out
                if (settled.getAsBoolean()) {
                    owned.get().forEach(shard -> passes.put(shard, shard.passesBegun()));
                }
                if (passes.isEmpty()) {
                    waitUntil(
                            deadlineNanos,
                            "held no shard, or was still claiming its shards (is the engine started, and another"
                                    + " node holding them all?)");
                }
            }
            trigger.run();
            while (!passesEndedSince(passes)) {
                waitUntil(deadlineNanos, "was still busy, " + (handled(stats) - before) + " rows handled so far");
            }
            if (handled(stats) == start && passes.keySet().containsAll(owned.get())) {
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
            if (shard.gone()) {
                continue;
            }
            if (!shard.idle() || shard.stragglers().size() > 0) {
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
