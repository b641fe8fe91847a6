package io.shardscan.core;

import io.shardscan.core.spi.EndpointBans;
import io.shardscan.core.spi.FetchRequest;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.spi.WriteBack;
import io.shardscan.core.task.EndpointDownClassifier;
import io.shardscan.core.task.RetryRules;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * What the rounds and lanes of one task share: its definition and retry rules, handler, store,
 * clock, worker pool with a permit per worker (the permits bound the task's concurrency; the pool
 * grows past them only to replace threads abandoned in a hung handler), the node's worker budget
 * when there is one, and counters. Immutable and thread-safe.
 */
final class TaskContext {

    private final TaskDefinition definition;
    private final TaskHandler handler;
    private final boolean transactional;
    private final WatchedStore store;
    private final RunningStatements statements;
    private final ScanClock clock;
    private final ScanListener listener;
    private final TaskWorkers workers;
    private final Semaphore workerPermits;
    private final TaskStats stats = new TaskStats();
    private final FailureLog failures = new FailureLog();
    private final HandlerFailures handlerFailures;
    private final RetryRules rules;
    private final Runnable wakeUp;
    private final BooleanSupplier dispatching;
    private final LongSupplier countingRun;
    private final @Nullable WorkerBudget budget;
    private final String nodeId;
    private final @Nullable EndpointBlacklist endpoints;

    TaskContext(
            ScanEngine.ScanTask task,
            TaskStore store,
            java.time.Duration statementTimeout,
            ScanClock clock,
            ScanListener listener,
            TaskWorkers workers,
            String nodeId,
            Runnable wakeUp,
            BooleanSupplier dispatching,
            LongSupplier countingRun,
            @Nullable WorkerBudget budget,
            EndpointBans bans,
            EndpointDownClassifier endpointDown) {
        this.definition = task.definition();
        this.handlerFailures = new HandlerFailures(this, endpointDown);
        this.handler = task.handler();
        this.transactional = task.transactional();
        this.statements = new RunningStatements(
                task.definition().name(), task.definition().table(), clock);
        this.store = new WatchedStore(store, statementTimeout, statements);
        this.clock = clock;
        this.listener = listener;
        this.workers = workers;
        this.workerPermits = new Semaphore(task.definition().rounds().workers());
        this.rules = task.definition().retryRules();
        this.wakeUp = wakeUp;
        this.dispatching = dispatching;
        this.countingRun = countingRun;
        this.budget = budget;
        this.nodeId = nodeId;
        this.endpoints = task.definition().endpoints() == null
                ? null
                : new EndpointBlacklist(task.definition(), clock, listener, bans);
    }

    /** The endpoints' blacklist and slow shares; {@code null} for a task without an endpoint column. */
    @Nullable
    EndpointBlacklist endpoints() {
        return endpoints;
    }

    /** What a failure means for this task. */
    RetryRules rules() {
        return rules;
    }

    /**
     * The page of {@code tier} to read next in {@code shard}, after the keyset position ({@code
     * afterText} for a text id, else {@code afterId}), leaving out the rows of {@code
     * excludedEndpoints}. Its failed rows are due once they rested the tier's interval by the store's
     * clock: the node's clock never takes part, so nodes whose clocks differ agree on when a row is due.
     */
    FetchRequest fetch(
            int shard,
            Tier tier,
            @Nullable Instant afterDue,
            long afterId,
            @Nullable String afterText,
            int limit,
            List<String> excludedEndpoints) {
        return new FetchRequest(
                shard,
                tier.minRetries(),
                rules.openEnded(tier) ? Integer.MAX_VALUE : tier.maxRetries(),
                tier.maxRetries() > 0 ? tier.interval() : null,
                afterDue,
                afterId,
                afterText,
                limit,
                excludedEndpoints);
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

    /** The statements of this task's rounds running now. */
    RunningStatements statements() {
        return statements;
    }

    ScanClock clock() {
        return clock;
    }

    ScanListener listener() {
        return listener;
    }

    TaskWorkers workers() {
        return workers;
    }

    /**
     * A worker thread was left behind in a call the engine gave up on: the pool gets one more
     * thread, so the task keeps its full worker count while that one is stuck.
     */
    void workerAbandoned() {
        stats.abandoned();
        workers.abandoned();
    }

    /** A thread left behind came back: the pool shrinks by the thread it had added for it. */
    void abandonedWorkerReturned() {
        stats.abandonedReturned();
        workers.returned();
    }

    Semaphore workerPermits() {
        return workerPermits;
    }

    /**
     * The node's worker budget that every round of this task takes its workers from, or {@code null}
     * when the node has none: then the dispatcher hands a round the task's free permits.
     */
    @Nullable
    WorkerBudget budget() {
        return budget;
    }

    /**
     * Gives {@code count} workers back: to the task, and to the node's budget when there is one; the
     * dispatcher, which does not poll while no worker is free, is woken to use them.
     */
    void releaseWorkers(int count) {
        // first: the worker may start the next lane at once, which is to find this lane's thread idle
        TaskWorkers.workerGivenBack();
        workerPermits.release(count);
        if (budget != null) {
            budget.release(count);
        }
        if (count > 0) {
            wakeUp();
        }
    }

    /** Whether this node still starts rounds of the task: it runs and is not paused. */
    boolean dispatching() {
        return dispatching.getAsBoolean();
    }

    /** The run this node's write-backs count for now (see {@link WriteBack#run()}); 0 for none. */
    long countingRun() {
        return countingRun.getAsLong();
    }

    TaskStats stats() {
        return stats;
    }

    /** Which handler failures of this task are logged at WARN. */
    /** What the handler's failures mean, and their log lines. */
    HandlerFailures handlerFailures() {
        return handlerFailures;
    }

    FailureLog failures() {
        return failures;
    }

    void wakeUp() {
        wakeUp.run();
    }
}
