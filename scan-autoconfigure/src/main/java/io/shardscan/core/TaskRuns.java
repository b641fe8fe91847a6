package io.shardscan.core;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Where the runs of the tasks live, shared by every node (for the JDBC store, the {@code run_*}
 * columns of {@code scan_task}). It stores and reads; which run is current, when one starts and
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
     * @return the current run: the one started, or the one that existed (running or done)
     */
    TaskRun startFirst(TaskDefinition task, String by, Instant at);

    /**
     * Starts a new run, with the id after the current one's (1 when none), whatever the current one's
     * state: running, with zero counts. Nodes join it at their next read.
     *
     * @return the run started
     */
    TaskRun start(TaskDefinition task, String by, Instant at);

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
