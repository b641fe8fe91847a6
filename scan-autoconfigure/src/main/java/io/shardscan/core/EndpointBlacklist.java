package io.shardscan.core;

import io.shardscan.core.spi.EndpointBan;
import io.shardscan.core.spi.EndpointBans;
import io.shardscan.core.task.EndpointRules;
import io.shardscan.core.task.OnExhausted;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskDefinition;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The one place that decides, for one task on this node, which endpoints are called (seed 003):
 *
 * <ul>
 *   <li>level 1, this node: after {@code level1.after} endpoint-down failures in a row the endpoint
 *       is skipped here for the rest of the pass (the first tier's interval), and the trip is
 *       recorded in the shared store;
 *   <li>level 2, every node: {@code level2.trips} trips within {@code level2.window} ban it for
 *       {@code level2.ban}; its rows are then left out of the fetch ({@link #excluded()});
 *   <li>after the ban one node wins the probe: one row is let through, success lifts the ban and
 *       an endpoint-down failure renews it;
 *   <li>an endpoint whose calls take longer than {@code slow-call} holds at most {@code slow-share}
 *       of the workers; its further rows wait for the next pass. So does an endpoint not yet seen
 *       to answer quickly, so that a slow one cannot take every worker before its first call ends.
 *       A round does not wait for its calls ({@link RunningLanes}).
 * </ul>
 *
 * Skipped rows stay pending untouched when the task keeps retrying (sync), and count as a failure
 * when it gives up after its last tier (transfer). Thread-safe: lanes of every round call it.
 */
final class EndpointBlacklist {

    private static final System.Logger log = ScanLogging.getLogger(EndpointBlacklist.class);

    /** What a lane does with a row of an endpoint. */
    enum Admission {
        CALL,
        /** The one row let through after a ban. */
        PROBE,
        SKIP_LEVEL1,
        SKIP_BANNED,
        SKIP_SLOW,
        /** Another row of this endpoint is the probe. */
        SKIP_PROBING;

        boolean calls() {
            return this == CALL || this == PROBE;
        }
    }

    private record Probe(long untilNanos, AtomicBoolean taken) {}

    private final String task;
    private final EndpointRules rules;
    private final boolean skipCountsAsFailure;
    private final int slowSlots;
    private final Duration pass;
    private final ScanClock clock;
    private final ScanListener listener;
    private final EndpointBans store;

    private final Map<String, Long> level1Until = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> failuresInRow = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    private final Set<String> slow = ConcurrentHashMap.newKeySet();
    /** Endpoints whose last call was quick; any other may be slow, so it gets only the slow share. */
    private final Set<String> quick = ConcurrentHashMap.newKeySet();

    private final Map<String, Probe> probes = new ConcurrentHashMap<>();
    private final Set<String> warned = ConcurrentHashMap.newKeySet();
    private volatile Map<String, EndpointBan> banned = Map.of();

    EndpointBlacklist(TaskDefinition definition, ScanClock clock, ScanListener listener, EndpointBans store) {
        this.task = definition.name();
        this.rules = definition.endpoints();
        this.skipCountsAsFailure = definition.onExhausted() == OnExhausted.DEAD;
        this.slowSlots = rules.slowSlots(definition.rounds().workers());
        this.pass = definition.tiers().get(0).interval();
        this.clock = clock;
        this.listener = listener;
        this.store = store;
    }

    EndpointRules rules() {
        return rules;
    }

    /** The endpoints whose rows the fetch leaves out: every ban, in force or awaiting its probe, but the one probed here. */
    List<String> excluded() {
        Map<String, EndpointBan> now = banned;
        if (now.isEmpty()) {
            return List.of();
        }
        List<String> excluded = new ArrayList<>(now.keySet());
        excluded.removeAll(probes.keySet());
        return excluded;
    }

    /** The bans as last read from the store, in endpoint order. */
    List<EndpointBan> bans() {
        return List.copyOf(banned.values());
    }

    /** Whether a row of {@code endpoint} may be called now; a call admitted must be followed by {@link #ended}. */
    Admission admit(@Nullable String endpoint) {
        if (endpoint == null) {
            return Admission.CALL;
        }
        Probe probe = probes.get(endpoint);
        if (probe != null) {
            if (!probe.taken().compareAndSet(false, true)) {
                return Admission.SKIP_PROBING;
            }
            inFlight(endpoint).incrementAndGet();
            return Admission.PROBE;
        }
        if (banned.containsKey(endpoint)) {
            return Admission.SKIP_BANNED;
        }
        Long until = level1Until.get(endpoint);
        if (until != null && clock.nanos() - until < 0) {
            return Admission.SKIP_LEVEL1;
        }
        AtomicInteger running = inFlight(endpoint);
        if (!quick.contains(endpoint)) {
            int current;
            do {
                current = running.get();
                if (current >= slowSlots) {
                    return Admission.SKIP_SLOW;
                }
            } while (!running.compareAndSet(current, current + 1));
            return Admission.CALL;
        }
        running.incrementAndGet();
        return Admission.CALL;
    }

    /**
     * Whether a row whose call failed for an endpoint-down reason, without a trip, is tried again at
     * once: not when another lane tripped or banned the endpoint meanwhile. A retry admitted must be
     * followed by {@link #ended}.
     */
    boolean admitsRetry(String endpoint) {
        Long until = level1Until.get(endpoint);
        if (banned.containsKey(endpoint) || (until != null && clock.nanos() - until < 0)) {
            return false;
        }
        inFlight(endpoint).incrementAndGet();
        return true;
    }

    /** Whether the endpoint's last call took longer than {@code slow-call}. */
    boolean isSlow(String endpoint) {
        return slow.contains(endpoint);
    }

    /** What the write-back records for a row that was not called. */
    Outcome skipped(Admission admission, @Nullable String endpoint) {
        if (skipCountsAsFailure && (admission == Admission.SKIP_LEVEL1 || admission == Admission.SKIP_BANNED)) {
            return Outcome.retryLater("endpoint " + endpoint + " is unavailable ("
                    + (admission == Admission.SKIP_LEVEL1 ? "level 1" : "level 2") + " blacklist): not called");
        }
        return Outcome.skip();
    }

    /**
     * A call admitted by {@link #admit} ended after {@code tookNanos} with {@code outcome} ({@code null}
     * when it was taken over or lost).
     *
     * @return whether the endpoint tripped level 1 now, so the row is not tried again in this pass
     */
    boolean ended(@Nullable String endpoint, Admission admission, @Nullable Outcome outcome, long tookNanos) {
        if (endpoint == null) {
            return false;
        }
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
        if (admission == Admission.PROBE) {
            probed(endpoint, outcome);
            return outcome != null && outcome.endpointDown();
        }
        if (outcome == null) {
            return false;
        }
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
        int trips;
        try {
            trips = store.trip(task, endpoint, rules.level2Window());
        } catch (RuntimeException e) {
            log.log(Level.WARNING, "Task " + task + ": cannot record the trip of endpoint " + endpoint + ": " + e);
            return;
        }
        if (trips >= rules.level2Trips()) {
            ban(endpoint, reason, trips + " level-1 trips within " + rules.level2Window(), false);
        }
    }

    /**
     * Bans {@code endpoint} on every node. A ban is an event (listener, WARN) when this node started
     * it or, with {@code renewal}, renewed it after its probe failed; a trip that finds another node's
     * ban in force, recorded since this node last read the bans, extends that ban and tells nothing.
     */
    private void ban(String endpoint, String reason, String why, boolean renewal) {
        boolean started;
        try {
            started = store.ban(task, endpoint, rules.level2Ban(), reason);
        } catch (RuntimeException e) {
            log.log(Level.WARNING, "Task " + task + ": cannot record the ban of endpoint " + endpoint + ": " + e);
            return;
        }
        Map<String, EndpointBan> next = new TreeMap<>(banned);
        next.put(endpoint, new EndpointBan(endpoint, clock.now(), clock.now().plus(rules.level2Ban()), reason, true));
        banned = next;
        if (!started && !renewal) {
            log.log(
                    Level.DEBUG,
                    () -> "Task " + task + ": endpoint " + endpoint + " tripped while another node's ban was in force,"
                            + " which this node had not read yet");
            return;
        }
        listener.endpointBanned(task, endpoint, reason);
        log.log(
                Level.WARNING,
                "Task " + task + ": endpoint " + endpoint + " banned on every node for " + rules.level2Ban() + " ("
                        + why + "; last error: " + reason + "); its rows are not fetched until then, then one probe"
                        + " row is let through. POST /actuator/scan/" + task
                        + " {\"action\": \"lift-ban\", \"endpoint\": \"" + endpoint + "\"} lifts it now");
    }

    private void probed(String endpoint, @Nullable Outcome outcome) {
        if (outcome == null) {
            probes.remove(endpoint);
            return;
        }
        if (outcome.endpointDown()) {
            probes.remove(endpoint);
            ban(endpoint, String.valueOf(outcome.reason()), "its probe row failed", true);
            return;
        }
        lift(endpoint, "its probe row went through");
    }

    /**
     * Lifts the ban of {@code endpoint} everywhere and clears its level 1 here; returns whether there
     * was a ban. Only a lifted ban is an event (listener, log).
     */
    boolean lift(String endpoint, String why) {
        boolean lifted = store.lift(task, endpoint);
        Map<String, EndpointBan> next = new TreeMap<>(banned);
        lifted |= next.remove(endpoint) != null;
        banned = next;
        probes.remove(endpoint);
        level1Until.remove(endpoint);
        failuresInRow.remove(endpoint);
        warned.remove(endpoint);
        if (lifted) {
            listener.endpointLifted(task, endpoint);
            log.log(Level.INFO, "Task " + task + ": ban of endpoint " + endpoint + " lifted: " + why);
        } else {
            // nothing was banned: no event, and no log line that says a ban was lifted
            log.log(Level.DEBUG, () -> "Task " + task + ": endpoint " + endpoint + " was not banned (" + why + ")");
        }
        return lifted;
    }

    /**
     * Reads the bans back from the store (on the lease tick, not per round) and claims the probe of
     * bans that ended; while the store cannot be read the last bans hold.
     */
    void refresh() {
        long now = clock.nanos();
        probes.entrySet()
                .removeIf(e -> now - e.getValue().untilNanos() >= 0
                        && !e.getValue().taken().get());
        List<EndpointBan> read;
        try {
            read = store.bans(task);
        } catch (RuntimeException e) {
            log.log(Level.DEBUG, () -> "Task " + task + ": cannot read the endpoint bans, keeping the last: " + e);
            return;
        }
        Map<String, EndpointBan> next = new TreeMap<>();
        for (EndpointBan ban : read) {
            next.put(ban.endpoint(), ban);
            if (!ban.active() && !probes.containsKey(ban.endpoint())) {
                Duration hold = pass.multipliedBy(2);
                try {
                    if (store.claimProbe(task, ban.endpoint(), hold)) {
                        probes.put(ban.endpoint(), new Probe(now + hold.toNanos(), new AtomicBoolean()));
                    }
                } catch (RuntimeException e) {
                    log.log(Level.DEBUG, () -> "Task " + task + ": cannot claim a probe: " + e);
                }
            }
        }
        banned = next;
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

    private AtomicInteger inFlight(String endpoint) {
        return inFlight.computeIfAbsent(endpoint, e -> new AtomicInteger());
    }
}
