package io.shardscan.core;

import io.shardscan.core.spi.RangeFailure;
import io.shardscan.core.spi.RangeSnapshot;
import io.shardscan.core.spi.RangeStores;
import io.shardscan.core.spi.TaskRun;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.ScanContext;
import java.util.List;

/**
 * A live view of one range task on this node, for the actuator, metrics and the application's own
 * code. Thread-safe.
 */
public final class RangeView {

    private final RangeRunner runner;
    private final RangeStores stores;

    RangeView(RangeRunner runner, RangeStores stores) {
        this.runner = runner;
        this.stores = stores;
    }

    public RangeTask task() {
        return runner.task();
    }

    /** How many heartbeats this task's control thread began (for tests: statements per tick). */
    long ticks() {
        return runner.ticks();
    }

    /**
     * The current run's progress as the control thread last read it (every renew interval); runs no SQL.
     */
    public RangeSnapshot snapshot() {
        return runner.status().snapshot();
    }

    /**
     * The last statement of this task's workers or control thread cancelled for running past twice
     * {@code scan.lease-ttl}, described (its kind, table, timeout and the fix); runs no SQL.
     *
     * @return {@code null} when none, or when a statement of its kind succeeded since
     */
    public @org.jspecify.annotations.Nullable String statementTimedOut() {
        return runner.statements().lastTimeout();
    }

    /** How many of this task's statements were cancelled for running past their timeout since start. */
    public long statementTimeouts() {
        return runner.statements().timeouts();
    }

    /** How many failed rows the current run holds now (one count query). */
    public long failureCount() {
        return stores.failures().count(task().name(), snapshot().run().id());
    }

    /**
     * The current run's most recent failures (one query).
     *
     * @return at most {@code limit}, the newest first
     */
    public List<RangeFailure> recentFailures(int limit) {
        return stores.failures().recent(task().name(), snapshot().run().id(), limit);
    }

    /**
     * The task's schedule, its next firing and its last firing as this node last read them
     * ({@code scan.tasks.<name>.schedule}); runs no statement.
     *
     * @return {@code null} for a task without a schedule
     */
    public @org.jspecify.annotations.Nullable ScheduleStatus schedule() {
        return runner.schedule();
    }

    /**
     * Starts a new run over the table's ids as they are now, when the current one is DONE; a running
     * run is left alone.
     *
     * @return the run that runs now
     */
    public TaskRun start() {
        return runner.restart();
    }

    /**
     * Runs up to {@code limit} recorded failures of the current run again, on the calling thread;
     * those that fail again are recorded again. Their {@link ScanContext} has shard {@code -1} and epoch
     * {@code 0}: no range holds them; a failure is taken by one node only, so two requeues at once
     * never run one row twice.
     *
     * @return how many rows ran
     */
    public int requeue(int limit) {
        return runner.requeue(limit);
    }
}
