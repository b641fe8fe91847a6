package io.shardscan.core;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What an application does with its tasks from its own code, one bean of it per engine: start a new
 * run of a task that ends (such as {@code run: until-empty}), and run tasks to quiet in a test, as
 * db-scheduler's {@code ManualScheduler} does, without waiting for tier intervals. Thread-safe.
 */
public final class ScanTasks {

    private final ScanEngine engine;

    public ScanTasks(ScanEngine engine) {
        this.engine = Objects.requireNonNull(engine, "engine");
    }

    /**
     * Starts a new run of {@code task} on every node, with the next run id: its rows are processed
     * again until it ends. A run that is still running is replaced by the new one (its counts stay
     * with it).
     *
     * @return the run started
     * @throws IllegalArgumentException for an unknown task
     *     For a range task ({@code mode: range}), a new run starts only when the current one is DONE.
     * @throws IllegalStateException for a task that runs forever ({@code run: forever}), which has no runs
     */
    public TaskRun start(String task) {
        if (engine.rangeTaskNames().contains(task)) {
            // a range task's run covers the ids as they are when it starts; a running one is left alone
            RangeView range = engine.rangeTask(task);
            return range.start();
        }
        return engine.task(task).start();
    }

    /**
     * Scans every shard this node holds of {@code task} now and returns once it is quiet: every tier
     * ran a pass to its end and the last round of passes handled no row. Rows that fail meanwhile
     * wait for their tier's interval as always.
     *
     * @return the rows handled meanwhile (done, failed or dead)
     * @throws IllegalArgumentException for an unknown task
     * @throws IllegalStateException when the task holds no shard, or is still busy, after {@code timeout}
     */
    public long drain(String task, Duration timeout) {
        return engine.task(task).drain(timeout);
    }

    /**
     * {@link #drain(String, Duration) Drains} every task in turn, each within {@code timeout}.
     *
     * @return the rows each task handled, by task name in configuration order
     */
    public Map<String, Long> drainAll(Duration timeout) {
        Map<String, Long> handled = new LinkedHashMap<>();
        engine.taskNames().forEach(name -> handled.put(name, drain(name, timeout)));
        return handled;
    }
}
