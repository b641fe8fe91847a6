package io.shardscan.core;

import java.time.Duration;
import java.util.Objects;

/**
 * How long a node that dropped out of a task's members and came back holds back before it takes
 * shards from the others ({@code scan.rejoin-hold}, {@code scan.rejoin-window}): {@link #hold} after
 * one rejoin, twice that after a second one within {@link #window}, and so on, at most the window
 * itself. A node that starts is no rejoin: only a running node that was out of the members longer than
 * {@code scan.member-timeout} is. Immutable.
 *
 * @param hold how long a node holds back after a rejoin; zero switches damping off
 * @param window how far back rejoins count; also the longest hold
 */
public record RejoinDamping(Duration hold, Duration window) {

    /** The defaults of {@code scan.rejoin-hold} and {@code scan.rejoin-window}. */
    public static final RejoinDamping DEFAULT = new RejoinDamping(Duration.ofSeconds(30), Duration.ofMinutes(10));

    /** No damping: a node that rejoins takes its shards back at once. */
    public static final RejoinDamping OFF = new RejoinDamping(Duration.ZERO, DEFAULT.window());

    public RejoinDamping {
        Objects.requireNonNull(hold, "hold");
        Objects.requireNonNull(window, "window");
        if (hold.isNegative()) {
            throw new IllegalArgumentException(
                    "scan.rejoin-hold must not be negative (was " + hold + "): set it to 0" + " to switch damping off");
        }
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("scan.rejoin-window must be a positive duration (was " + window + ")");
        }
        if (hold.compareTo(window) > 0) {
            throw new IllegalArgumentException("scan.rejoin-hold (" + hold + ") must be at most scan.rejoin-window ("
                    + window + "), which is also the longest hold");
        }
    }

    /** Whether a node that rejoins holds back at all. */
    public boolean enabled() {
        return !hold.isZero();
    }

    /**
     * The hold after the {@code rejoins}-th rejoin within the window (1 for the first): {@link #hold}
     * doubled for each earlier one, at most {@link #window}.
     */
    public Duration holdAfter(int rejoins) {
        Duration held = hold;
        for (int i = 1; i < rejoins && held.compareTo(window) < 0; i++) {
            held = held.multipliedBy(2);
        }
        return held.compareTo(window) > 0 ? window : held;
    }
}
