package io.shardscan.testsupport;

import static org.awaitility.Awaitility.await;

import io.shardscan.core.TaskView;
import java.util.Arrays;

/**
 * Waits for tasks' next lease ticks ({@link io.shardscan.core.TaskStats#leaseTicks()}): each tick reads
 * the pause, the run and the leases, so what a tick would have changed (a row run while paused, a run
 * ended twice, a shard taken) has had its chance, however slowly a loaded machine ticks. A test asserts
 * "nothing happened" after them instead of after a stretch of wall time. A tick is counted after it woke
 * the dispatcher, which runs on a thread of its own: for what the dispatcher would start (a round), wait
 * for two ticks or more, so that the first one's wake-up had until the next tick to be acted on.
 */
public final class LeaseTicks {

    private LeaseTicks() {}

    /** Returns once every one of {@code tasks} ended {@code ticks} more lease ticks. */
    public static void awaitNext(int ticks, TaskView... tasks) {
        long[] marks =
                Arrays.stream(tasks).mapToLong(t -> t.stats().leaseTicks()).toArray();
        await().until(() -> {
            for (int i = 0; i < tasks.length; i++) {
                if (tasks[i].stats().leaseTicks() - marks[i] < ticks) {
                    return false;
                }
            }
            return true;
        });
    }
}
