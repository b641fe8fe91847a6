package io.shardscan.core.spi;

import java.time.Instant;
import java.util.Objects;

/**
 * The record a scheduled task keeps in {@link TaskRuns} of the last firing of its schedule handled by
 * any node: every firing up to {@link #at()} is handled, so the next one due is the schedule's first
 * after it. Immutable.
 *
 * @param at when it was handled, by the clock of the node that handled it: the schedule's first sight, or
 *     the tick that started (or skipped) the run of a firing due then
 * @param by the node that handled it
 * @param kind what happened then
 */
public record Firing(Instant at, String by, Kind kind) {

    public Firing {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(by, "by");
        Objects.requireNonNull(kind, "kind");
    }

    /** What the last record says. */
    public enum Kind {
        /** No firing yet: the schedule was first seen at {@code at}; only firings after it start runs. */
        SEEN,
        /** A firing due at {@code at} started the task's next run. */
        STARTED,
        /** A firing due at {@code at} found the task's run still running: no run started for it. */
        SKIPPED
    }

    /** Whether this record is the one node {@code node} wrote at {@code at}: its own call handled the firing. */
    public boolean isBy(String node, Instant at) {
        return by.equals(node) && this.at.equals(at);
    }
}
