package io.shardscan.dashboard;

import io.shardscan.core.Member;
import io.shardscan.core.NodeCounters;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.TaskView;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * Samples, every {@code scan.dashboard.rate-sample}, the processed counter every member of every task
 * published with its last heartbeat (this node's own totals for a member that published none, such as
 * under the static coordinator) into the {@link RateHistory}. Runs no query: the members are those of
 * the last lease tick. Thread-safe.
 */
final class RateSampler implements SmartLifecycle {

    private static final System.Logger log = System.getLogger(RateSampler.class.getName());

    private final ScanEngine engine;
    private final RateHistory history;
    private final Duration every;
    private @Nullable ScheduledExecutorService executor;

    RateSampler(ScanEngine engine, RateHistory history, Duration every) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.history = Objects.requireNonNull(history, "history");
        if (every.isNegative() || every.isZero()) {
            throw new IllegalArgumentException(
                    "scan.dashboard.rate-sample must be positive (was " + every + "), e.g. 5s");
        }
        this.every = every;
    }

    /** Takes one sample of every task now. */
    void sample() {
        long now = System.nanoTime();
        for (String name : engine.taskNames()) {
            TaskView task = engine.task(name);
            List<Member> members = task.members();
            for (Member member : members) {
                NodeCounters counters = member.counters();
                if (counters != null) {
                    history.record(name, member.node(), counters.processed(), now);
                } else if (member.node().equals(engine.nodeId())) {
                    history.record(name, member.node(), task.stats().processed(), now);
                }
            }
            if (members.isEmpty()) {
                history.record(name, engine.nodeId(), task.stats().processed(), now);
            } else {
                history.retain(name, members.stream().map(Member::node).toList());
            }
        }
    }

    @Override
    public synchronized void start() {
        if (executor != null) {
            return;
        }
        ScheduledExecutorService started = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "scan-dashboard-rates");
            thread.setDaemon(true);
            return thread;
        });
        started.scheduleWithFixedDelay(this::sampleQuietly, 0, every.toMillis(), TimeUnit.MILLISECONDS);
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

    private void sampleQuietly() {
        try {
            sample();
        } catch (RuntimeException e) {
            // an exception would cancel the schedule for good
            log.log(Level.WARNING, "Dashboard rate sample failed", e);
        }
    }
}
