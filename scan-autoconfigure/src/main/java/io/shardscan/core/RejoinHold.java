package io.shardscan.core;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import org.jspecify.annotations.Nullable;

/**
 * This node's rejoins of one task's members and the hold they impose ({@link RejoinDamping}). A rejoin
 * is read off the coordinator's own clock: this node's heartbeat in a tick's answer came more than
 * {@code scan.member-timeout} after its heartbeat in the previous answer, so the other members dropped
 * it meanwhile. While the hold lasts the node publishes it with its heartbeat
 * ({@link io.shardscan.core.spi.NodeCounters#holdingBack()}), so every node's assignment leaves the
 * shards the others hold with them; the hold is timed by this node's monotonic clock alone, so no two
 * machines' clocks are compared and no other node has to agree on when it began. Thread-safe: the
 * control thread ticks, the endpoint and the metrics read.
 */
final class RejoinHold {

    // the claims' logger, which applications and tests filter on
    private static final System.Logger log = ScanLogging.getLogger(LeaseKeeper.class);

    private final String task;
    private final ScanClock clock;
    private final RejoinDamping damping;
    private final Duration memberTimeout;
    /** When each rejoin within the window was seen, monotonic, oldest first. */
    private final Deque<Long> rejoins = new ArrayDeque<>();

    private @Nullable Instant lastHeartbeat;
    /** When the last answer came, monotonic. */
    private long lastAnsweredAt;

    private boolean holding;
    private long holdUntil;
    /** {@link #holdUntil} as wall time, read once when the hold was set, so that every status shows the same. */
    private Instant holdUntilWall = Instant.EPOCH;

    /** How long without an answer before a heartbeat publishes a hold in case the node was dropped. */
    private final long suspectAfterNanos;

    RejoinHold(String task, ScanClock clock, RejoinDamping damping, Duration memberTimeout, Duration renewInterval) {
        this.task = task;
        this.clock = clock;
        this.damping = damping;
        this.memberTimeout = memberTimeout;
        this.suspectAfterNanos = memberTimeout.minus(renewInterval.dividedBy(2)).toNanos();
    }

    /**
     * Whether the heartbeat of a tick sent now publishes a hold: while one lasts, and when the node has
     * had no answer for nearly the member timeout (half a renew interval less), since it may have been
     * dropped (whether it was shows only in the answer). Published before the answer, the others do not
     * see a returning node without its hold and hand it shards it would not claim; a hold published for
     * nothing lasts one tick. Not sooner: a node that steadily holds shards and publishes a hold makes
     * the others' holds void (when every member holds back none does), so one failed tick (an answer
     * two renew intervals old) or a slow one must not. Ends a hold whose time is up.
     */
    synchronized boolean publish() {
        long now = clock.nanos();
        if (holding && now - holdUntil >= 0) {
            holding = false;
            log.log(
                    Level.INFO,
                    "Task " + task + ": the rejoin hold ended; this node takes its share of the shards again");
        }
        return holding || (damping.enabled() && lastHeartbeat != null && now - lastAnsweredAt > suspectAfterNanos);
    }

    /**
     * A tick answered with this node's heartbeat at {@code heartbeat}, the coordinator's time: a rejoin
     * when it is more than the member timeout after the previous one.
     */
    synchronized void answered(Instant heartbeat) {
        Instant previous = lastHeartbeat;
        lastHeartbeat = heartbeat;
        lastAnsweredAt = clock.nanos();
        if (previous == null
                || !damping.enabled()
                || Duration.between(previous, heartbeat).compareTo(memberTimeout) <= 0) {
            return;
        }
        long now = clock.nanos();
        while (!rejoins.isEmpty()
                && now - rejoins.peekFirst() > damping.window().toNanos()) {
            rejoins.removeFirst();
        }
        rejoins.addLast(now);
        Duration hold = damping.holdAfter(rejoins.size());
        if (!holding || now + hold.toNanos() - holdUntil > 0) {
            holdUntil = now + hold.toNanos();
            holdUntilWall = clock.now().plus(hold);
        }
        holding = true;
        log.log(
                Level.WARNING,
                "Task " + task + ": this node rejoined the members after "
                        + Duration.between(previous, heartbeat).toMillis()
                        + " ms out of them (more than scan.member-timeout, " + memberTimeout + "), "
                        + times(rejoins.size()) + " within scan.rejoin-window (" + damping.window() + "): it holds back"
                        + " for " + hold + ", until " + holdUntilWall
                        + ", and takes no shard the others hold until then"
                        + " (scan.rejoin-hold: " + damping.hold() + ", 0 switches it off)");
    }

    /** Whether this node holds back now. */
    synchronized boolean holding() {
        return holding && clock.nanos() - holdUntil < 0;
    }

    /** The hold as the endpoint shows it; {@code null} when the node does not hold back. */
    synchronized @Nullable RejoinHoldStatus status() {
        long now = clock.nanos();
        if (!holding || now - holdUntil >= 0) {
            return null;
        }
        int counted = (int) rejoins.stream()
                .filter(at -> now - at <= damping.window().toNanos())
                .count();
        return new RejoinHoldStatus(holdUntilWall, counted, damping.window());
    }

    private static String times(int rejoins) {
        return rejoins == 1 ? "the first time" : rejoins + " times";
    }
}
