package io.shardscan.core;

import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One task's control or dispatch thread as the task sees it, run on the node's shared threads
 * ({@link NodeThreads}) so that a node's threads do not grow with its tasks: what it is given runs one
 * at a time, in order, each run seeing what the one before wrote; the thread running it carries its
 * name meanwhile ({@code scan-orders-lease-3}), so logs and thread dumps read as with a thread of its
 * own. One run at a time per pool hand-off: a task that always has more to run does not keep a shared
 * thread from the others. Shut down, it takes nothing new and a delayed run not yet queued is dropped;
 * {@link #shutdown} lets the queued runs finish, {@link #shutdownNow} drops them and interrupts the one
 * running (never a shared thread once it runs another task's work). Thread-safe.
 */
final class TaskThread implements Executor {

    private static final System.Logger log = ScanLogging.getLogger(TaskThread.class);

    private final String name;
    private final Executor pool;
    private final ScheduledExecutorService timer;
    private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    /** Whether a hand-off to the pool is pending or running. */
    private boolean active;

    private boolean shutdown;
    private @Nullable Thread running;

    /**
     * @param name the name its runs' thread carries, a shared thread's number appended
     * @param pool the shared threads it runs on
     * @param timer hands a delayed run to it when due; runs nothing itself
     */
    TaskThread(String name, Executor pool, ScheduledExecutorService timer) {
        this.name = name;
        this.pool = pool;
        this.timer = timer;
    }

    /** @throws RejectedExecutionException once shut down */
    @Override
    public void execute(Runnable run) {
        synchronized (this) {
            if (shutdown) {
                throw new RejectedExecutionException(name + " is shut down");
            }
            queue.add(run);
            if (active) {
                return;
            }
            active = true;
        }
        handOff();
    }

    /**
     * Runs {@code run} after {@code delay}, unless cancelled or shut down before it is queued.
     *
     * @throws RejectedExecutionException once shut down
     */
    Delayed schedule(Runnable run, long delay, TimeUnit unit) {
        synchronized (this) {
            if (shutdown) {
                throw new RejectedExecutionException(name + " is shut down");
            }
        }
        Delayed delayed = new Delayed(run);
        delayed.due = timer.schedule(delayed::queue, delay, unit);
        return delayed;
    }

    synchronized boolean isShutdown() {
        return shutdown;
    }

    /** Takes nothing new; what is queued still runs. */
    synchronized void shutdown() {
        shutdown = true;
    }

    /** Takes nothing new, drops what is queued and interrupts the run in progress. */
    synchronized void shutdownNow() {
        shutdown = true;
        queue.clear();
        if (running != null) {
            running.interrupt();
        }
    }

    /** Waits up to {@code timeout} for the queued runs and the one in progress to end. */
    synchronized boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (active) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }

    private void handOff() {
        try {
            pool.execute(this::runNext);
        } catch (RejectedExecutionException e) {
            // the node stopped: nothing of the task runs any more
            synchronized (this) {
                queue.clear();
                active = false;
                notifyAll();
            }
        }
    }

    private void runNext() {
        Thread thread = Thread.currentThread();
        Runnable next;
        synchronized (this) {
            next = queue.poll();
            if (next == null) {
                active = false;
                notifyAll();
                return;
            }
            running = thread;
        }
        String shared = thread.getName();
        thread.setName(Threads.runningFor(name, thread));
        try {
            next.run();
        } catch (RuntimeException | Error e) {
            log.log(Level.WARNING, name + ": a run failed: " + e, e);
        } finally {
            thread.setName(shared);
            boolean more;
            synchronized (this) {
                running = null;
                // an interrupt meant for this run must not reach the next task's work on this thread
                Thread.interrupted();
                more = !queue.isEmpty();
                if (!more) {
                    active = false;
                    notifyAll();
                }
            }
            if (more) {
                handOff();
            }
        }
    }

    /** A delayed run; cancelled, it does not run, even when already due and queued. */
    final class Delayed {

        private final Runnable run;
        private volatile boolean cancelled;
        private volatile @Nullable ScheduledFuture<?> due;

        private Delayed(Runnable run) {
            this.run = run;
        }

        /** Whether it came due and was queued (or dropped, shut down). */
        boolean queued() {
            ScheduledFuture<?> scheduled = due;
            return scheduled != null && scheduled.isDone() && !scheduled.isCancelled();
        }

        void cancel() {
            cancelled = true;
            ScheduledFuture<?> scheduled = due;
            if (scheduled != null) {
                scheduled.cancel(false);
            }
        }

        private void queue() {
            try {
                execute(() -> {
                    if (!cancelled) {
                        run.run();
                    }
                });
            } catch (RejectedExecutionException e) {
                // shut down meanwhile: a delayed run is dropped
            }
        }
    }
}
