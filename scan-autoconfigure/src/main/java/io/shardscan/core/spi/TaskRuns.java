package io.shardscan.core.spi;

import io.shardscan.core.task.RunRange;
import io.shardscan.core.task.TaskDefinition;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Where the runs of the tasks live, shared by every node (for the JDBC store, the {@code run_*}
 * columns of {@code scan_task}): of status-column tasks ({@code run: until-empty}) and of range
 * tasks alike, a range task's run with the {@link RunRange} it fixed when it started. It stores and reads; which run is current, when one starts and
 * when it is done is decided in core. Each change is one conditional statement, so nodes that act
 * at once agree. Implementations are thread-safe.
 */
public interface TaskRuns {

    /**
     * The task's current run.
     *
     * @return the last run started, with the counts it recorded (its final ones once done, else
     *     {@link RunCounts#NONE}); {@code null} when the task never ran
     */
    @Nullable
    TaskRun current(TaskDefinition task);

    /**
     * Starts the task's first run (id 1) unless a run exists already: the run every node joins when
     * the task starts for the first time. Nodes that call it at once start one run.
     *
     * @param range for a range task, the ids and range size of the run; kept only when this call
     *     starts it (the first node's snapshot wins); {@code null} for a status-column task
     * @return the current run: the one started, or the one that existed (running or done)
     */
    TaskRun startFirst(TaskDefinition task, String by, Instant at, @Nullable RunRange range);

    /**
     * Starts the run after {@code previous} (running, with zero counts), whatever the state of
     * {@code previous}, unless another run became current meanwhile: of nodes that start one at once,
     * exactly one does and the others get its run. Nodes join it at their next read.
     *
     * @param previous the id of the run this call replaces; 0 when the task never ran
     * @param range for a range task, the ids and range size of the new run; {@code null} for a
     *     status-column task
     * @return the current run: the one started, or the one another node started first
     */
    TaskRun start(TaskDefinition task, long previous, String by, Instant at, @Nullable RunRange range);

    /**
     * Ends run {@code run}: done, with {@code counts}, only while it is the current run and running,
     * in one conditional statement, so of nodes that end it at once exactly one does.
     *
     * @return whether this call ended it; {@code false} when it was done already or is no longer current
     */
    boolean finish(TaskDefinition task, long run, RunCounts counts, String by, Instant at);

    /**
     * What the write-backs of run {@code run} counted so far on every shard (see
     * {@link WriteBack#run()}).
     *
     * @return the counts; {@link RunCounts#NONE} when nothing was written back for it
     */
    RunCounts counted(TaskDefinition task, long run);
}
