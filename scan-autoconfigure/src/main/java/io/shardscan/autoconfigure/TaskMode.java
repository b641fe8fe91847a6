package io.shardscan.autoconfigure;

import io.shardscan.core.OnExhausted;
import java.time.Duration;

/**
 * Presets for pushing rows to receivers (seed 003). Each sets a few task properties, every one of
 * which the task may still set itself.
 */
public enum TaskMode {

    /** Lossy: no retry inside a pass, a short call timeout, dead after the last tier. */
    TRANSFER(OnExhausted.DEAD, Duration.ofSeconds(10), 1),

    /** Must arrive: quick retries inside the pass, retried forever, never dead. */
    SYNC(OnExhausted.KEEP_RETRYING, Duration.ofMinutes(5), 3);

    final OnExhausted onExhausted;
    final Duration handlerTimeout;
    final int level1After;

    TaskMode(OnExhausted onExhausted, Duration handlerTimeout, int level1After) {
        this.onExhausted = onExhausted;
        this.handlerTimeout = handlerTimeout;
        this.level1After = level1After;
    }
}
