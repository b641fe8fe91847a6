package io.shardscan.core.task;

import io.shardscan.core.ScanEngine;
import java.util.Objects;

/**
 * A range task and its handler, as {@link ScanEngine.ScanTask} is for a status task. Immutable.
 *
 * @param task the task
 * @param handler the user's code: per row, or per page for a batch handler
 * @param transactional whether each try of a unit (a row, or a page for a batch handler) runs in one
 *     transaction of the application's that commits the range's position past the unit with the
 *     handler's own statements, only when the unit succeeded and the range still holds its epoch;
 *     the stores must have {@link io.shardscan.core.spi.RangeStores#transactions() transactions}
 */
public record RangeJob(RangeTask task, TaskHandler handler, boolean transactional) {

    public RangeJob {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(handler, "handler");
    }

    /** A job whose handler's statements commit on their own, apart from the range's position. */
    public RangeJob(RangeTask task, TaskHandler handler) {
        this(task, handler, false);
    }
}
