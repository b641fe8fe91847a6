package io.shardscan.actuate;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * A piece of work run on a daemon thread of its own, with a fixed delay between the end of one run
 * and the start of the next, from {@link #start()} to {@link #stop()}. A run that throws is logged
 * and the schedule goes on (an exception would cancel it for good). Thread-safe.
 */
public abstract class Periodic implements SmartLifecycle {

    private static final System.Logger log = System.getLogger(Periodic.class.getName());

    private final String threadName;
    private final Duration every;
    private @Nullable ScheduledExecutorService executor;

    /**
     * @param property the setting {@code every} comes from, named when it is not positive
     * @param every the delay between runs; must be positive
     * @param example a valid value of the setting, shown in the error
     */
    protected Periodic(String threadName, String property, Duration every, String example) {
        this.threadName = Objects.requireNonNull(threadName, "threadName");
        Objects.requireNonNull(every, property);
        if (every.isNegative() || every.isZero()) {
            throw new IllegalArgumentException(property + " must be positive (was " + every + "), e.g. " + example);
        }
        this.every = every;
    }

    /** The delay between runs. */
    protected final Duration every() {
        return every;
    }

    /** One run, on the lifecycle's thread. */
    protected abstract void runOnce();

    @Override
    public synchronized void start() {
        if (executor != null) {
            return;
        }
        ScheduledExecutorService started = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        });
        started.scheduleWithFixedDelay(this::runQuietly, 0, every.toMillis(), TimeUnit.MILLISECONDS);
        executor = started;
    }

    @Override
    public synchronized void stop() {
        if (executor != null) {
            executor.shutdownNow();
            executor = null;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return executor != null;
    }

    private void runQuietly() {
        try {
            runOnce();
        } catch (RuntimeException e) {
            log.log(Level.WARNING, threadName + ": a periodic run failed; the next one runs in " + every, e);
        }
    }
}
