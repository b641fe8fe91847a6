package io.shardscan.core;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * One task's rounds (and archive batches) on the node's shared threads ({@link NodeThreads}): a
 * round's fetch, or an archive batch, on the few fetch threads of the task's store ({@link #execute}),
 * its lanes' wait and write-back on the node's round threads ({@link #lanes}), so that the rounds a node's
 * tasks start at once do not each hold a thread while they wait for the database. Each runs on a
 * thread that carries the task's name meanwhile ({@code scan-orders-round-7}); {@link #shutdownNow}
 * interrupts the task's work still running, never a shared thread once it runs another task's.
 * Thread-safe.
 */
final class TaskRounds implements Executor {

    private final String name;
    private final Executor fetches;
    private final Executor taskLanes;
    private final Set<Thread> running = new HashSet<>();
    private boolean shutdown;

    /**
     * @param name the name a round's thread carries, a shared thread's number appended
     * @param fetches the fetch threads of the task's store
     * @param lanes the node's round threads
     */
    TaskRounds(String name, Executor fetches, Executor lanes) {
        this.name = name;
        this.fetches = fetches;
        this.taskLanes = work -> submit(lanes, work);
    }

    /**
     * Runs a round's fetch or an archive batch on the fetch threads of the task's store.
     *
     * @throws RejectedExecutionException once shut down
     */
    @Override
    public void execute(Runnable fetch) {
        submit(fetches, fetch);
    }

    /** Where a round runs its lanes once it holds workers; rejects once shut down. */
    Executor lanes() {
        return taskLanes;
    }

    private void submit(Executor pool, Runnable work) {
        synchronized (this) {
            if (shutdown) {
                throw new RejectedExecutionException(name + " is shut down");
            }
        }
        pool.execute(() -> run(work));
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
