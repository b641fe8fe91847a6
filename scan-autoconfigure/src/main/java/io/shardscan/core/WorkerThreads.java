package io.shardscan.core;

import java.util.concurrent.ThreadFactory;

/**
 * The threads a task's handlers run on: the engine asks for one factory per task and keeps at most
 * {@code workers} of its threads (plus one for each handler it gave up on), so the task's worker
 * bound holds on any kind of thread. The engine's own threads (lease ticks, renewals, dispatch,
 * rounds) are never made here: a node whose handlers saturate their threads still renews its leases.
 *
 * <p>{@link #PLATFORM} is the default; the auto-configuration uses virtual threads with {@code
 * spring.threads.virtual.enabled=true} on Java 21 or later, and a {@code ScanEngineCustomizer}
 * can set another, e.g. one that names threads for the application's thread dumps.
 */
@FunctionalInterface
public interface WorkerThreads {

    /** Daemon platform threads named {@code <prefix><n>}. */
    WorkerThreads PLATFORM = (task, prefix) -> Threads.named(prefix);

    /**
     * The factory of one task's worker threads.
     *
     * @param task the task's name
     * @param prefix what the engine names them, e.g. {@code scan-orders-worker-}; thread dumps and
     *     log lines are easier to read when the threads keep it
     */
    ThreadFactory factory(String task, String prefix);
}
