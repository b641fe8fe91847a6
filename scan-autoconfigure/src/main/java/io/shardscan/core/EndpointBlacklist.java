package io.shardscan.core;

import io.shardscan.core.spi.EndpointBan;
import io.shardscan.core.spi.EndpointBans;
import io.shardscan.core.task.EndpointRules;
import io.shardscan.core.task.OnExhausted;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskDefinition;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
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
 * Skipped rows stay pending untouched when the task keeps retrying (sync; a banned endpoint's rows
 * are not even fetched), and count as a failure when it gives up after its last tier (transfer; a
 * banned endpoint's rows are fetched and counted too). Each level keeps its own state:
 * {@link EndpointLevel1}, {@link EndpointLevel2}, {@link EndpointSlowShare}; this class is what a
 * lane asks. Thread-safe: lanes of every round call it.
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

    private final String task;
    private final EndpointRules rules;
    private final boolean skipCountsAsFailure;
    private final ScanListener listener;
    private final EndpointLevel1 level1;
    private final EndpointLevel2 level2;
    private final EndpointSlowShare slowShare;

    EndpointBlacklist(TaskDefinition definition, ScanClock clock, ScanListener listener, EndpointBans store) {
        this.task = definition.name();
        this.rules = definition.endpoints();
        this.skipCountsAsFailure = definition.onExhausted() == OnExhausted.DEAD;
        Duration pass = definition.tiers().get(0).interval();
        this.listener = listener;
        this.level2 = new EndpointLevel2(task, rules, pass, clock, listener, store);
        this.level1 = new EndpointLevel1(task, rules, pass, clock, listener, level2);
        this.slowShare = new EndpointSlowShare(
                task, rules, rules.slowSlots(definition.rounds().workers()));
    }

    EndpointRules rules() {
        return rules;
    }

    /**
     * The endpoints whose rows the fetch leaves out; see {@link EndpointLevel2#excluded}. None for a
     * task that gives up after its last tier (transfer): a banned endpoint's rows are fetched and each
     * counted as a failed attempt ({@link #skipped}), so they end dead as the seed's transfer asks,
     * instead of waiting out the ban to be sent late.
     */
    List<String> excluded() {
        return skipCountsAsFailure ? List.of() : level2.excluded();
    }

    /** The bans as last read from the store, in endpoint order. */
    List<EndpointBan> bans() {
        return level2.bans();
    }

    /** Whether a row of {@code endpoint} may be called now; a call admitted must be followed by {@link #ended}. */
    Admission admit(@Nullable String endpoint) {
        if (endpoint == null) {
            return Admission.CALL;
        }
        Admission banned = level2.admit(endpoint);
        if (banned == Admission.PROBE) {
            slowShare.count(endpoint);
        }
        if (banned != null) {
            return banned;
        }
        if (level1.skips(endpoint)) {
            return Admission.SKIP_LEVEL1;
        }
        return slowShare.take(endpoint) ? Admission.CALL : Admission.SKIP_SLOW;
    }

    /**
     * Whether a row whose call failed for an endpoint-down reason, without a trip, is tried again at
     * once: not when another lane tripped or banned the endpoint meanwhile. A retry admitted must be
     * followed by {@link #ended}.
     */
    boolean admitsRetry(String endpoint) {
        if (level1.skips(endpoint) || level2.banned(endpoint)) {
            return false;
        }
        slowShare.count(endpoint);
        return true;
    }

    /** See {@link EndpointSlowShare#isSlow}. */
    boolean isSlow(String endpoint) {
        return slowShare.isSlow(endpoint);
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
        slowShare.ended(endpoint, outcome, tookNanos);
        if (admission == Admission.PROBE) {
            if (level2.probed(endpoint, outcome)) {
                lift(endpoint, "its probe row went through");
            }
            return outcome != null && outcome.endpointDown();
        }
        if (outcome == null) {
            return false;
        }
        return level1.ended(endpoint, outcome);
    }

    /**
     * Lifts the ban of {@code endpoint} everywhere and clears its level 1 here; returns whether there
     * was a ban. Only a lifted ban is an event (listener, log).
     */
    boolean lift(String endpoint, String why) {
        boolean lifted = level2.lift(endpoint);
        level1.clear(endpoint);
        if (lifted) {
            listener.endpointLifted(task, endpoint);
            log.log(Level.INFO, "Task " + task + ": ban of endpoint " + endpoint + " lifted: " + why);
        } else {
            // nothing was banned: no event, and no log line that says a ban was lifted
            log.log(Level.DEBUG, () -> "Task " + task + ": endpoint " + endpoint + " was not banned (" + why + ")");
        }
        return lifted;
    }

    /** On the lease tick: see {@link EndpointLevel2#tick}. */
    void tick() {
        level2.tick();
    }

    /** Before a round starts: see {@link EndpointLevel2#beforeRound}. */
    void beforeRound() {
        level2.beforeRound();
    }
}
