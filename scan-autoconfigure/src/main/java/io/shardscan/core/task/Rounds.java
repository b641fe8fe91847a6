package io.shardscan.core.task;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * How a task's rounds run: how much one fetch reads, how many handler calls run at once, how long
 * they may take and how the task ranks for free workers. Checked by {@link TaskDefinition}.
 *
 * @param pageSize the rows one fetch may return
 * @param workers the task's handler threads
 * @param timeout how long a round waits for its latch before it gives up on its stragglers
 * @param commitInterval how often a long round writes back what is done so far
 * @param handlerTimeout how long one handler call may run before it counts as failed
 * @param priority the task's rank for free workers of {@code scan.max-workers}, 0 to {@link
 *     TaskDefinition#MAX_PRIORITY}
 * @param maxWait how long a due row may wait before the task ranks above every priority; {@code
 *     null} for a task that never ages
 */
public record Rounds(
        int pageSize,
        int workers,
        Duration timeout,
        Duration commitInterval,
        Duration handlerTimeout,
        int priority,
        @Nullable Duration maxWait) {}
