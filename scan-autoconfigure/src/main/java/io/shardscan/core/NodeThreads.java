package io.shardscan.core;

import io.shardscan.core.spi.TaskStore;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The threads every task of a node shares for its lease ticks and its dispatcher passes, each task
 * one {@link TaskThread} on them, and for its rounds ({@link TaskRounds}): a node's threads no longer
 * grow with its tasks (200 tasks had a lease thread, a dispatcher thread and round threads each, and
 * 3,400 threads in all once their workers had run).
 * A tick, a pass or a round's fetch waits for its coordinator call, its probe or its statement at
 * most; with {@link #TICK_THREADS}, {@link #DISPATCH_THREADS} and {@link #FETCH_THREADS} a task whose
 * calls hang holds one thread, the others go on. A round runs its lanes on the round threads, as many
 * as rounds run lanes at once (each holding a worker); a round in line for workers holds none
 * ({@link WorkerBudget}). Every shared thread ends after {@link #KEEP_ALIVE} without work, so does
 * every worker thread of a task ({@link TaskRunner}); a round's thread does after a minute. With the
 * node's worker budget, the tasks' lanes share one pool of worker threads too ({@link #workers}).
 * Closed once every task has stopped.
 */
final class NodeThreads implements AutoCloseable {

    /** The shared threads of lease ticks, at most. */
    static final int TICK_THREADS = 4;

    /** The shared threads of dispatcher passes, at most. */
    static final int DISPATCH_THREADS = 8;

    /**
     * The shared threads of rounds' fetches and archive batches of the tasks of one store (one data
     * source), at most: each waits for the database, which runs few statements at once anyway (a pool
     * of 10 connections by default); a database that stops answering holds its own store's only.
     */
    static final int FETCH_THREADS = 8;

    /** How long a shared or worker thread without work is kept. */
    static final Duration KEEP_ALIVE = Duration.ofSeconds(60);

    private final ScheduledThreadPoolExecutor timer;
    private final ThreadPoolExecutor ticks;
    private final ThreadPoolExecutor dispatch;
    /** The fetch threads of each task store, made at first use; named as one. */
    private final Map<TaskStore, ThreadPoolExecutor> fetches = new IdentityHashMap<>();

    private final ThreadFactory fetchThreads = Threads.named("scan-fetch-");
    private final ExecutorService rounds;
    /** The lanes' threads of every task that takes its workers from the node's budget; made at first use. */
    private TaskWorkers.@Nullable NodePool workers;

    /** @param tasks the node's tasks: no more shared threads of a kind than tasks */
    NodeThreads(int tasks) {
        this.timer = new ScheduledThreadPoolExecutor(1, Threads.named("scan-timer-"));
        timer.setRemoveOnCancelPolicy(true);
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.ticks = pool("scan-ticks-", Math.max(1, Math.min(tasks, TICK_THREADS)));
        this.dispatch = pool("scan-dispatch-", Math.max(1, Math.min(tasks, DISPATCH_THREADS)));
        // as many as rounds run lanes at once, each holding a worker: a round waits for its lanes
        this.rounds = Executors.newCachedThreadPool(Threads.named("scan-round-"));
    }

    private static ThreadPoolExecutor pool(String prefix, int threads) {
        return pool(threads, Threads.named(prefix));
    }

    /** Up to {@code threads} threads of {@code factory}, queued like a fixed pool, each ending after {@link #KEEP_ALIVE} without work. */
    static ThreadPoolExecutor pool(int threads, ThreadFactory factory) {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(
                threads, threads, KEEP_ALIVE.toMillis(), TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), factory);
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** The task's control thread, which runs its lease ticks. */
    TaskThread control(String task) {
        return new TaskThread("scan-" + task + "-lease", ticks, timer);
    }

    /** The task's dispatcher thread. */
    TaskThread dispatcher(String task) {
        return new TaskThread("scan-" + task + "-dispatch", dispatch, timer);
    }

    /**
     * The task's rounds and archive batches; they fetch on the fetch threads of {@code store}, the
     * task's store, which the node's other tasks on that store share: not fewer for a node of one task,
     * whose shards fetch side by side too.
     */
    synchronized TaskRounds rounds(String task, TaskStore store) {
        ThreadPoolExecutor storeFetches = fetches.computeIfAbsent(store, any -> pool(FETCH_THREADS, fetchThreads));
        return new TaskRounds("scan-" + task + "-round", storeFetches, rounds);
    }

    /**
     * The task's share of the node's worker threads, as many as the node's worker budget ({@code
     * scan.max-workers}) has workers; see {@link TaskWorkers}.
     */
    synchronized TaskWorkers workers(String task, int budget) {
        if (workers == null) {
            workers = TaskWorkers.nodePool(budget, Threads.named("scan-worker-"));
        }
        return TaskWorkers.share(workers, "scan-" + task + "-worker-");
    }

    /** Runs {@code work} every {@code period} on a round thread, until {@link #close()}; it should be quick. */
    void every(Duration period, Runnable work) {
        timer.scheduleWithFixedDelay(
                () -> {
                    try {
                        rounds.execute(work);
                    } catch (RejectedExecutionException e) {
                        // closed meanwhile
                    }
                },
                period.toNanos(),
                period.toNanos(),
                TimeUnit.NANOSECONDS);
    }

    /** Interrupts what still runs on the shared threads; after every task stopped. */
    @Override
    public synchronized void close() {
        if (workers != null) {
            workers.shutdownNow();
        }
        timer.shutdownNow();
        ticks.shutdownNow();
        dispatch.shutdownNow();
        fetches.values().forEach(ThreadPoolExecutor::shutdownNow);
        rounds.shutdownNow();
    }
}
