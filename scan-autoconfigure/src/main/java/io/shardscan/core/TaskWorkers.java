package io.shardscan.core;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The threads one task's lanes run on. With the node's worker budget ({@code scan.max-workers}, on by
 * default) and the engine's own platform threads, a share of one pool of the node as large as the
 * budget ({@link #share}): the budget lets no more lanes run at once than it has workers, so the node's
 * worker threads stay within it however many tasks it runs (200 tasks of 8 workers each kept 1,600
 * threads, one pool per task). A lane there runs on a thread named for its task, {@code
 * scan-<task>-worker-<n>}, as on a pool of its own. Without a budget, or with the application's own
 * worker threads (virtual threads, a customizer's factory), a pool of the task's own of its {@code
 * workers} threads ({@link #own}). Either way the pool grows by a thread for each one abandoned in a
 * hung handler, so the task keeps its workers, and every thread ends after {@link
 * NodeThreads#KEEP_ALIVE} without work. Thread-safe.
 */
final class TaskWorkers {

    private final ThreadPoolExecutor pool;
    private final Sizing sizing;
    /** The node's pool this task shares, or {@code null} for a pool of its own. */
    private final @Nullable NodePool node;

    private final String prefix;
    /**
     * The node pool whose lane the current thread runs and still holds a worker for; see {@link
     * #workerGivenBack()}.
     */
    private static final ThreadLocal<NodePool> LANE_HOLDS_A_WORKER = new ThreadLocal<>();

    /** On a shared pool, the threads running this task's lanes now: those {@link #stop()} interrupts. */
    private final Set<Thread> running = new HashSet<>();

    private TaskWorkers(ThreadPoolExecutor pool, Sizing sizing, @Nullable NodePool node, String prefix) {
        this.pool = pool;
        this.sizing = sizing;
        this.node = node;
        this.prefix = prefix;
    }

    /** A pool of the task's own: {@code workers} threads of {@code factory}, queued like a fixed pool. */
    static TaskWorkers own(int workers, ThreadFactory factory) {
        return new TaskWorkers(NodeThreads.pool(workers, factory), new Sizing(workers), null, "");
    }

    /** A share of the node's pool; its lanes run on threads renamed {@code prefix<n>}. */
    static TaskWorkers share(NodePool nodePool, String prefix) {
        return new TaskWorkers(nodePool, nodePool.sizing, nodePool, prefix);
    }

    /**
     * The node's pool: up to {@code threads} threads, a lane going to an idle one first and a new one
     * made only when none is idle. A fixed pool makes a thread for every lane until it has them all,
     * idle ones or not: one task of 8 workers made the budget's 200.
     */
    static NodePool nodePool(int threads, ThreadFactory factory) {
        return new NodePool(threads, factory);
    }

    /** Runs a lane on one of the task's threads. */
    void execute(Runnable lane) {
        NodePool shared = node;
        if (shared == null) {
            pool.execute(lane);
            return;
        }
        shared.execute(() -> {
            Thread thread = Thread.currentThread();
            String name = thread.getName();
            if (!name.startsWith(prefix)) {
                // only when it changes: a thread running the same task's lanes one after another keeps it
                thread.setName(prefix + name.substring(name.lastIndexOf('-') + 1));
            }
            synchronized (running) {
                running.add(thread);
            }
            LANE_HOLDS_A_WORKER.set(shared);
            try {
                lane.run();
            } finally {
                // a lane that ended without giving its worker back on this thread (the round gave up on it)
                workerGivenBack();
                // under the lock stop() interrupts with: a thread that left this task's lane is never
                // interrupted for it (the pool clears what lands before its next lane)
                synchronized (running) {
                    running.remove(thread);
                }
            }
        });
    }

    /**
     * On a lane's thread, just before the lane gives its worker back ({@link TaskContext#releaseWorkers}):
     * the node's pool counts the thread as idle from now, as it is a moment later, so the lane the freed
     * worker starts next waits for it instead of making a thread of its own (one task of 8 workers ran on
     * 12 threads). Elsewhere, a no-op: a round's thread, a pool of a task's own, or a lane whose round gave
     * up on it (its thread, stuck in the call, stays counted busy until it comes back).
     */
    static void workerGivenBack() {
        NodePool node = LANE_HOLDS_A_WORKER.get();
        if (node != null) {
            LANE_HOLDS_A_WORKER.remove();
            node.submitted.decrementAndGet();
        }
    }

    /** The threads of the pool now, idle ones included. */
    int threads() {
        return pool.getPoolSize();
    }

    /** The threads of the pool running a lane now. */
    int busyThreads() {
        return pool.getActiveCount();
    }

    /** A thread was left behind in a call the engine gave up on: the pool gets one more. */
    void abandoned() {
        resize(1);
    }

    /**
     * A thread left behind came back: the pool shrinks by the thread it had added for it. It may come
     * back before the round that gave up on it counted it abandoned (the call returned just then): the
     * pool never shrinks below its base size meanwhile (it tried to shrink a pool of one worker to none).
     */
    void returned() {
        resize(-1);
    }

    private void resize(int change) {
        synchronized (sizing) {
            sizing.abandoned += change;
            int size = sizing.base + Math.max(0, sizing.abandoned);
            if (node != null) {
                pool.setMaximumPoolSize(size);
            } else if (size >= pool.getMaximumPoolSize()) {
                // the core never above the maximum: grow the maximum first, shrink the core first
                pool.setMaximumPoolSize(size);
                pool.setCorePoolSize(size);
            } else {
                pool.setCorePoolSize(size);
                pool.setMaximumPoolSize(size);
            }
        }
    }

    /**
     * The task stopped: interrupts the threads still in its handlers, those abandoned included; a pool
     * of its own shuts down, the node's goes on for the other tasks.
     */
    void stop() {
        if (node == null) {
            pool.shutdownNow();
            return;
        }
        synchronized (running) {
            running.forEach(Thread::interrupt);
        }
    }

    /**
     * The node's pool: its queue takes a lane only while a thread is idle to run it or the pool is at
     * its size; otherwise it refuses, and the pool makes a thread (as Tomcat's executor does, counting
     * the lanes handed in that still hold their worker).
     */
    static final class NodePool extends ThreadPoolExecutor {

        private final AtomicInteger submitted = new AtomicInteger();
        private final Sizing sizing;

        NodePool(int threads, ThreadFactory factory) {
            super(0, threads, NodeThreads.KEEP_ALIVE.toMillis(), TimeUnit.MILLISECONDS, new IdleFirstQueue(), factory);
            this.sizing = new Sizing(threads);
            ((IdleFirstQueue) getQueue()).pool = this;
        }

        @Override
        public void execute(Runnable lane) {
            submitted.incrementAndGet();
            try {
                super.execute(lane);
            } catch (RejectedExecutionException e) {
                if (isShutdown()) {
                    submitted.decrementAndGet();
                    throw e;
                }
                // the pool reached its size between the queue's answer and the new thread: it waits in line
                ((IdleFirstQueue) getQueue()).force(lane);
            }
        }
    }

    private static final class IdleFirstQueue extends LinkedBlockingQueue<Runnable> {

        /** Set once, before the pool's first lane. */
        private NodePool pool;

        @Override
        public boolean offer(Runnable lane) {
            // a thread is idle, or none can be added: the lane waits here for one
            if (pool.submitted.get() <= pool.getPoolSize() || pool.getPoolSize() >= pool.getMaximumPoolSize()) {
                return super.offer(lane);
            }
            return false;
        }

        void force(Runnable lane) {
            super.offer(lane);
        }
    }

    /** A pool's size: its base threads, and one for each thread abandoned and not back yet. Guarded by itself. */
    private static final class Sizing {

        private final int base;
        /** Below zero while a thread came back before it was counted abandoned. */
        private int abandoned;

        Sizing(int base) {
            this.base = base;
        }
    }
}
