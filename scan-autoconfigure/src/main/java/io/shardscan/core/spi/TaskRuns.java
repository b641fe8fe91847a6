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
 * at once agree. A task with a schedule also keeps its {@link Firing} record here, next to its run.
 * Implementations are thread-safe.
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
     * The firing record of the task's schedule ({@link Firing}), made when there is none: the schedule is
     * then first seen at {@code at} ({@link Firing.Kind#SEEN}), and a task that never ran gets run 0,
     * {@link TaskRun.State#DONE DONE}, in which nothing ran, so that its first run starts at its first
     * firing and not when a node starts. Nodes that call it at once make one record.
     *
     * @param range for a range task, the ids and range size run 0 gets (an empty span); {@code null} for a
     *     status-column task
     * @return the record: the one made, or the one that existed
     */
    Firing firstSeen(TaskDefinition task, String by, Instant at, @Nullable RunRange range);

    /**
     * Handles the firing {@code firing} of the task's schedule, unless its record says it was handled (a
     * record at or after {@code firing}): starts the task's next run (running, with zero counts) when the
     * current one is done, or records the firing as skipped while the current run runs. Each is one
     * conditional statement that also moves the record to {@code at}, so of nodes that handle one firing at
     * once exactly one does, and a crash between two statements neither loses nor doubles a firing.
     *
     * @param firing the firing due, the schedule's first after the record this node last read
     * @param at when this node handles it, at or after {@code firing}; the new record's time
     * @param range for a range task, the ids and range size of the run it starts; {@code null} for a
     *     status-column task
     * @return the record after this call: this call's ({@link Firing#isBy}) when it handled the firing,
     *     else the one of the node that handled it first
     * @throws IllegalStateException when the task has no record ({@link #firstSeen} makes it)
     */
    Firing fire(TaskDefinition task, Instant firing, String by, Instant at, @Nullable RunRange range);

    /**
     * What the write-backs of run {@code run} counted so far on every shard (see
     * {@link WriteBack#run()}).
     *
     * @return the counts; {@link RunCounts#NONE} when nothing was written back for it
     */
    RunCounts counted(TaskDefinition task, long run);
}
