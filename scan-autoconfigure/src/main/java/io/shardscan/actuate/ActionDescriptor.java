package io.shardscan.actuate;

import io.shardscan.core.TaskView;
import org.jspecify.annotations.Nullable;

/**
 * What a write operation on {@code /actuator/scan/{task}} did. Immutable.
 *
 * @param node this node's id
 * @param task the task
 * @param action the action as the client named it
 * @param state the task's state on this node afterwards
 * @param requeued the rows put back to pending by {@code requeue-dead}, {@code null} for other actions
 * @param run the id of the task's current run afterwards (for {@code start}, the run it started);
 *     {@code null} for a task that runs forever
 */
public record ActionDescriptor(
        String node,
        String task,
        String action,
        TaskView.State state,
        @Nullable Integer requeued,
        @Nullable Long run) {}
