package io.shardscan.core;

/**
 * The runs of range tasks, shared by every node: which run is current, the ids it covers (taken once,
 * when it starts) and whether it ended. Each change is one conditional statement, so every node sees
 * the same run and a run ends exactly once. Thread-safe.
 */
public interface RangeRuns {

    /**
     * The task's latest run; when it has none, starts run 1 over the table's ids as they are now.
     *
     * @return the run, done or not
     */
    RangeRun current(RangeTask task);

    /**
     * Starts the run after {@code previous}, over the table's ids as they are now, unless another node
     * started it first.
     *
     * @return the task's latest run: the new one, or the one another node started
     */
    RangeRun start(RangeTask task, long previous);

    /**
     * Ends the run if it still runs.
     *
     * @return {@code true} for the one caller that ended it, {@code false} when it had ended already
     */
    boolean finish(String task, long run);
}
