package io.shardscan.core;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Thread factories that name the engine's threads after their task, as daemons. */
final class Threads {

    private Threads() {}

    /**
     * The name a shared thread of the node carries while it runs {@code task}'s work: {@code prefix}
     * ({@code scan-orders-lease}) and the shared thread's number, {@code scan-orders-lease-3}.
     */
    static String runningFor(String prefix, Thread shared) {
        String name = shared.getName();
        return prefix + name.substring(Math.max(0, name.lastIndexOf('-')));
    }

    static ThreadFactory named(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
