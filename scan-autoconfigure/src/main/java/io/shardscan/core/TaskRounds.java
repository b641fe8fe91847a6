package io.shardscan.core;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * One task's rounds (and archive batches) on the node's shared round threads ({@link NodeThreads}):
 * each runs on a thread that carries the task's name meanwhile ({@code scan-orders-round-7});
 * {@link #shutdownNow} interrupts the task's rounds still running, never a shared thread once it runs
 * another task's round. Thread-safe.
 */
final class TaskRounds implements Executor {

    private final String name;
    private final Executor pool;
    private final Set<Thread> running = new HashSet<>();
    private boolean shutdown;

    /** @param name the name a round's thread carries, a shared thread's number appended */
    TaskRounds(String name, Executor pool) {
        this.name = name;
        this.pool = pool;
    }

    /** @throws RejectedExecutionException once shut down */
    @Override
    public void execute(Runnable round) {
        synchronized (this) {
            if (shutdown) {
                throw new RejectedExecutionException(name + " is shut down");
            }
        }
        pool.execute(() -> run(round));
    }

    /** Takes no more rounds and interrupts those running. */
    synchronized void shutdownNow() {
        shutdown = true;
        running.forEach(Thread::interrupt);
    }

    private void run(Runnable round) {
        Thread thread = Thread.currentThread();
        synchronized (this) {
            running.add(thread);
            if (shutdown) {
                // accepted before the stop: it runs, to end what it began, but interrupted
                thread.interrupt();
            }
        }
        String shared = thread.getName();
        thread.setName(Threads.runningFor(name, thread));
        try {
            round.run();
        } finally {
            thread.setName(shared);
            synchronized (this) {
                running.remove(thread);
                // an interrupt meant for this round must not reach another task's round on this thread
                Thread.interrupted();
            }
        }
    }
}
