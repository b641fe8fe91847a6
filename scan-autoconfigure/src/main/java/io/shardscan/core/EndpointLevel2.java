package io.shardscan.core;

import io.shardscan.core.spi.EndpointBan;
import io.shardscan.core.spi.EndpointBans;
import io.shardscan.core.task.EndpointRules;
import io.shardscan.core.task.Outcome;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * Level 2 of a task's {@link EndpointBlacklist}, on every node: the trips, bans and probes kept in
 * the shared {@link EndpointBans}, the bans as this node last read them ({@link #tick}, on the lease
 * tick, and {@link #beforeRound}), and the probe rows it claimed. Thread-safe: lanes of every round
 * call it.
 */
final class EndpointLevel2 {

    // the blacklist's logger name, which applications and tests filter on
    private static final System.Logger log = ScanLogging.getLogger(EndpointBlacklist.class);

    private record Probe(long untilNanos, AtomicBoolean taken) {}

    private final String task;
    private final EndpointRules rules;
    private final Duration pass;
    private final ScanClock clock;
    private final ScanListener listener;
    private final EndpointBans store;

    private final Map<String, Probe> probes = new ConcurrentHashMap<>();
    private volatile Map<String, EndpointBan> banned = Map.of();
    /** Lease ticks that found no ban known here; the control thread's only. */
    private long quietTicks;
    /** Whether a tick left the bans unread since they were last read. */
    private volatile boolean unread;

    /** @param pass the first tier's interval: a probe claimed is held for two */
    EndpointLevel2(
            String task,
            EndpointRules rules,
            Duration pass,
            ScanClock clock,
            ScanListener listener,
            EndpointBans store) {
        this.task = task;
        this.rules = rules;
        this.pass = pass;
        this.clock = clock;
        this.listener = listener;
        this.store = store;
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

    /**
     * What level 2 does with a row of {@code endpoint}: {@code PROBE} when it is the probe this node
     * claimed (the caller counts the call), {@code SKIP_PROBING} when another row is, {@code SKIP_BANNED}
     * while banned; {@code null} when the endpoint is not banned.
     */
    EndpointBlacklist.@Nullable Admission admit(String endpoint) {
        Probe probe = probes.get(endpoint);
        if (probe != null) {
            if (!probe.taken().compareAndSet(false, true)) {
                return EndpointBlacklist.Admission.SKIP_PROBING;
            }
            return EndpointBlacklist.Admission.PROBE;
        }
        if (banned.containsKey(endpoint)) {
            return EndpointBlacklist.Admission.SKIP_BANNED;
        }
        return null;
    }

    /** Whether {@code endpoint} is banned, in force or awaiting its probe. */
    boolean banned(String endpoint) {
        return banned.containsKey(endpoint);
    }

    /** This node's level 1 tripped for {@code endpoint}: records the trip; enough of them ban it. */
    void tripped(String endpoint, String reason) {
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

    /**
     * The probe row of {@code endpoint} ended with {@code outcome} ({@code null} when it was taken
     * over or lost): an endpoint-down failure renews the ban.
     *
     * @return whether it went through, so the caller lifts the ban
     */
    boolean probed(String endpoint, @Nullable Outcome outcome) {
        if (outcome == null) {
            probes.remove(endpoint);
            return false;
        }
        if (outcome.endpointDown()) {
            probes.remove(endpoint);
            ban(endpoint, String.valueOf(outcome.reason()), "its probe row failed", true);
            return false;
        }
        return true;
    }

    /** Lifts the ban of {@code endpoint} everywhere, and drops its probe; returns whether there was a ban. */
    boolean lift(String endpoint) {
        boolean lifted = store.lift(task, endpoint);
        Map<String, EndpointBan> next = new TreeMap<>(banned);
        lifted |= next.remove(endpoint) != null;
        banned = next;
        probes.remove(endpoint);
        return lifted;
    }

    /**
     * On the lease tick: reads the bans while this node knows of one (so that a ban's end is probed,
     * and a lift seen, within a tick), else at every {@value EverywherePause#QUIET_TICKS}th tick only,
     * as the pause: a node with nothing to do read them at every tick, a statement each, to find none.
     * Another node's new ban is then seen by the next round here ({@link #beforeRound}), never later
     * than it was: the probe of idle shards may still ask for its rows, and the round that follows
     * leaves them out.
     */
    void tick() {
        if (banned.isEmpty() && probes.isEmpty() && quietTicks++ % EverywherePause.QUIET_TICKS != 0) {
            unread = true;
            return;
        }
        refresh();
    }

    /** Before a round starts: reads the bans when a tick left them unread since the last read. */
    void beforeRound() {
        if (unread) {
            refresh();
        }
    }

    /**
     * Reads the bans back from the store (not per round) and claims the probe of bans that ended;
     * while the store cannot be read the last bans hold.
     */
    private synchronized void refresh() {
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
        unread = false;
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
}
