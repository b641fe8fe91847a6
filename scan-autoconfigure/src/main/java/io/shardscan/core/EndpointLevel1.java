package io.shardscan.core;

import io.shardscan.core.task.EndpointRules;
import io.shardscan.core.task.Outcome;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Level 1 of a task's {@link EndpointBlacklist}, on this node: counts each endpoint's endpoint-down
 * failures in a row and skips a tripped endpoint here until its pass ends; each trip goes on to
 * level 2 ({@link EndpointLevel2#tripped}). Thread-safe: lanes of every round call it.
 */
final class EndpointLevel1 {

    // the blacklist's logger name, which applications and tests filter on
    private static final System.Logger log = ScanLogging.getLogger(EndpointBlacklist.class);

    private final String task;
    private final EndpointRules rules;
    private final Duration pass;
    private final ScanClock clock;
    private final ScanListener listener;
    private final EndpointLevel2 level2;

    private final Map<String, Long> level1Until = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> failuresInRow = new ConcurrentHashMap<>();
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    /** @param pass how long a trip skips the endpoint here: the first tier's interval */
    EndpointLevel1(
            String task,
            EndpointRules rules,
            Duration pass,
            ScanClock clock,
            ScanListener listener,
            EndpointLevel2 level2) {
        this.task = task;
        this.rules = rules;
        this.pass = pass;
        this.clock = clock;
        this.listener = listener;
        this.level2 = level2;
    }

    /** Whether {@code endpoint} tripped in this pass, so it is skipped on this node. */
    boolean skips(String endpoint) {
        Long until = level1Until.get(endpoint);
        return until != null && clock.nanos() - until < 0;
    }

    /**
     * Counts the {@code outcome} of a call to {@code endpoint} (not a probe's).
     *
     * @return whether the endpoint tripped level 1 now, so the row is not tried again in this pass
     */
    boolean ended(String endpoint, Outcome outcome) {
        if (!outcome.endpointDown()) {
            failuresInRow.remove(endpoint);
            return false;
        }
        int failures = failuresInRow
                .computeIfAbsent(endpoint, e -> new AtomicInteger())
                .incrementAndGet();
        if (failures < rules.level1After()) {
            return false;
        }
        failuresInRow.remove(endpoint);
        trip(endpoint, String.valueOf(outcome.reason()));
        return true;
    }

    private void trip(String endpoint, String reason) {
        long until = clock.nanos() + pass.toNanos();
        Long before = level1Until.put(endpoint, until);
        if (before != null && clock.nanos() - before < 0) {
            return; // another lane tripped it in this pass already
        }
        listener.endpointTripped(task, endpoint, reason);
        warnOnce(
                endpoint,
                "endpoint " + endpoint + " tripped level 1 after " + rules.level1After()
                        + " endpoint-down failures in a row (" + reason + "): skipped on this node for " + pass);
        level2.tripped(endpoint, reason);
    }

    /** Forgets the trip and the failures of {@code endpoint}, whose ban was lifted; its next trip is a WARN again. */
    void clear(String endpoint) {
        level1Until.remove(endpoint);
        failuresInRow.remove(endpoint);
        warned.remove(endpoint);
    }

    private void warnOnce(String endpoint, String message) {
        if (warned.add(endpoint)) {
            log.log(
                    Level.WARNING,
                    "Task " + task + ": " + message + "; said once per endpoint, until its ban is lifted");
        } else {
            log.log(Level.DEBUG, () -> "Task " + task + ": " + message);
        }
    }
}
