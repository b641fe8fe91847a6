package io.shardscan.autoconfigure;

import io.shardscan.core.task.OnExhausted;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * How a task works. {@link #TRANSFER} and {@link #SYNC} are presets for pushing rows to receivers
 * (seed 003), each setting a few task properties, every one of which the task may still set itself;
 * {@link #RANGE} scans the table by id ranges instead of by a status column (seed 002).
 */
public enum TaskMode {

    /** Lossy: no retry inside a pass, a short call timeout, dead after the last tier. */
    TRANSFER(OnExhausted.DEAD, Duration.ofSeconds(10), 1),

    /** Must arrive: quick retries inside the pass, retried forever, never dead. */
    SYNC(OnExhausted.KEEP_RETRYING, Duration.ofMinutes(5), 3),

    /** Range mode: only a numeric id column; ids are claimed in ranges and the table is never written. */
    RANGE(null, null, 0);

    final @Nullable OnExhausted onExhausted;
    final @Nullable Duration handlerTimeout;
    final int level1After;

    TaskMode(@Nullable OnExhausted onExhausted, @Nullable Duration handlerTimeout, int level1After) {
        this.onExhausted = onExhausted;
        this.handlerTimeout = handlerTimeout;
        this.level1After = level1After;
    }
}
