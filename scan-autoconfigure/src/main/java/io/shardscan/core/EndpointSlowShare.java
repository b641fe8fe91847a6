package io.shardscan.core;

import io.shardscan.core.task.EndpointRules;
import io.shardscan.core.task.Outcome;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The slow share of a task's {@link EndpointBlacklist}: counts each endpoint's calls in flight, and
 * caps those of an endpoint not known to be quick (its last call took longer than {@code slow-call},
 * or none ended yet) at {@code slow-share} of the workers. Thread-safe: lanes of every round call it.
 */
final class EndpointSlowShare {

    // the blacklist's logger name, which applications and tests filter on
    private static final System.Logger log = ScanLogging.getLogger(EndpointBlacklist.class);

    private final String task;
    private final EndpointRules rules;
    private final int slowSlots;

    private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    private final Set<String> slow = ConcurrentHashMap.newKeySet();
    /** Endpoints whose last call was quick; any other may be slow, so it gets only the slow share. */
    private final Set<String> quick = ConcurrentHashMap.newKeySet();

    /** @param slowSlots the workers a slow endpoint may hold: its share of the task's */
    EndpointSlowShare(String task, EndpointRules rules, int slowSlots) {
        this.task = task;
        this.rules = rules;
        this.slowSlots = slowSlots;
    }

    /**
     * Counts a call to {@code endpoint} unless the endpoint is not known to be quick and holds its
     * share of the workers already; a call counted must be followed by {@link #ended}.
     *
     * @return whether it was counted, so the row may be called
     */
    boolean take(String endpoint) {
        AtomicInteger running = inFlight(endpoint);
        if (!quick.contains(endpoint)) {
            int current;
            do {
                current = running.get();
                if (current >= slowSlots) {
                    return false;
                }
            } while (!running.compareAndSet(current, current + 1));
            return true;
        }
        running.incrementAndGet();
        return true;
    }

    /** Counts a call to {@code endpoint} whatever its share: a probe, a retry. It must be followed by {@link #ended}. */
    void count(String endpoint) {
        inFlight(endpoint).incrementAndGet();
    }

    /** Whether the endpoint's last call took longer than {@code slow-call}. */
    boolean isSlow(String endpoint) {
        return slow.contains(endpoint);
    }

    /**
     * A call counted here ended after {@code tookNanos} with {@code outcome} ({@code null} when it
     * was taken over or lost).
     */
    void ended(String endpoint, @Nullable Outcome outcome, long tookNanos) {
        inFlight(endpoint).decrementAndGet();
        if (tookNanos > rules.slowCall().toNanos()) {
            quick.remove(endpoint);
            if (slow.add(endpoint)) {
                log.log(
                        Level.WARNING,
                        "Task " + task + ": endpoint " + endpoint + " is slow (a call took "
                                + Duration.ofNanos(tookNanos).toMillis() + " ms, over scan.tasks." + task
                                + ".slow-call " + rules.slowCall() + "): it gets at most " + slowSlots
                                + " workers until a call is quick again");
            }
        } else if (outcome != null) {
            quick.add(endpoint);
            slow.remove(endpoint);
        }
    }

    private AtomicInteger inFlight(String endpoint) {
        return inFlight.computeIfAbsent(endpoint, e -> new AtomicInteger());
    }
}
