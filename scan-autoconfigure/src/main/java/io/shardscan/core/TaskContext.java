package io.shardscan.core;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Semaphore;

/**
 * What the rounds and lanes of one task share: its definition, handler, store, clock, bounded
 * worker pool with a permit per worker, and counters. Thread-safe.
 */
final class TaskContext {

    private final TaskDefinition definition;
    private final TaskHandler handler;
    private final boolean transactional;
    private final TaskStore store;
    private final ScanClock clock;
    private final ScanListener listener;
    private final ExecutorService workers;
    private final Semaphore workerPermits;
    private final TaskStats stats = new TaskStats();
    private final FailureLog failures = new FailureLog();
    private final Runnable wakeUp;
    private final String nodeId;
    private volatile int errorLength = 512;

    TaskContext(
            ScanEngine.ScanTask task,
            TaskStore store,
            ScanClock clock,
            ScanListener listener,
            ExecutorService workers,
            String nodeId,
            Runnable wakeUp) {
        this.definition = task.definition();
        this.handler = task.handler();
        this.transactional = task.transactional();
        this.store = store;
        this.clock = clock;
        this.listener = listener;
        this.workers = workers;
        this.workerPermits = new Semaphore(task.definition().workers());
        this.wakeUp = wakeUp;
        this.nodeId = nodeId;
    }

    String nodeId() {
        return nodeId;
    }

    String name() {
        return definition.name();
    }

    TaskDefinition definition() {
        return definition;
    }

    TaskHandler handler() {
        return handler;
    }

    /** Whether each handler call commits with its row's write-back in one fenced transaction. */
    boolean transactional() {
        return transactional;
    }

    TaskStore store() {
        return store;
    }

    ScanClock clock() {
        return clock;
    }

    ScanListener listener() {
        return listener;
    }

    ExecutorService workers() {
        return workers;
    }

    Semaphore workerPermits() {
        return workerPermits;
    }

    TaskStats stats() {
        return stats;
    }

    /** Which handler failures of this task are logged at WARN. */
    FailureLog failures() {
        return failures;
    }

    int errorLength() {
        return errorLength;
    }

    void errorLength(int length) {
        this.errorLength = length;
    }

    void wakeUp() {
        wakeUp.run();
    }
}
