package io.shardscan.core.task;

import io.shardscan.core.ScanEngine;
import java.util.Objects;

/**
 * A range task and its handler, as {@link ScanEngine.ScanTask} is for a status task. Immutable.
 *
 * @param task the task
 * @param handler the user's code: per row, or per page for a batch handler
 */
public record RangeJob(RangeTask task, TaskHandler handler) {

    public RangeJob {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(handler, "handler");
    }
}
