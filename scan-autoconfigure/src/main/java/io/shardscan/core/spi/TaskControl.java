package io.shardscan.core.spi;

import io.shardscan.core.task.TaskDefinition;
import java.time.Instant;

/**
 * The controller's side of a {@link TaskStore}: the pause every node obeys, and whether a run's rows
 * are all finished. Implementations are thread-safe.
 */
public interface TaskControl {

    /**
     * Whether the task is paused on every node, as {@link #pauseEverywhere} last set it.
     *
     * @return {@code false} when it was never set
     */
    boolean pausedEverywhere(TaskDefinition task);

    /**
     * {@link #pausedEverywhere(TaskDefinition)} of several tasks at once: a node's tasks read their
     * pauses together, so an implementation should answer with one statement.
     *
     * <p>The default asks each task apart.
     *
     * @return the names of those of {@code tasks} that are paused
     */
    default java.util.Set<String> pausedEverywhere(java.util.List<TaskDefinition> tasks) {
        java.util.Set<String> paused = new java.util.HashSet<>();
        tasks.stream().filter(this::pausedEverywhere).forEach(task -> paused.add(task.name()));
        return paused;
    }

    /** Pauses ({@code true}) or resumes the task on every node, recording who and when; it outlives restarts. */
    void pauseEverywhere(TaskDefinition task, boolean paused, String by, Instant at);

    /**
     * Whether any of the task's rows is left that its current run must finish before it ends: a
     * pending row with a shard key that is either failed before (waiting in a retry tier, or held
     * back behind its key) or, for a task with a due-at column, due by the store's own clock. Fresh
     * rows whose due time has not come (or is NULL) and rows whose shard key is NULL do not count:
     * no shard would fetch them now. One cheap query through the pending-row index, which stops at
     * the first such row.
     *
     * @throws UnsupportedOperationException when this store keeps no {@link TaskStore#runs() runs}
     */
    default boolean anyLeft(TaskDefinition task) {
        throw new UnsupportedOperationException("this task store keeps no runs");
    }
}
