package io.shardscan.core.task;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * When a task's runs start by themselves ({@code scan.tasks.<name>.schedule}): a calendar of
 * firings, each of which starts one run of the task across the cluster (see
 * {@link TaskDefinition#schedule()} and {@link RangeTask#schedule()}). Every node must compute the same
 * firings from the same instant, so an implementation depends on nothing local (no node's start time,
 * no JVM default read at each call). Implementations are immutable and thread-safe.
 */
public interface Schedule {

    /**
     * The first firing strictly after {@code after}.
     *
     * @return {@code null} when the schedule never fires again (a cron of a date that does not come)
     */
    @Nullable
    Instant next(Instant after);

    /** The schedule as configured, for logs and endpoints, e.g. {@code cron 0 0 2 * * * Europe/Berlin} or {@code every 1m}. */
    String describe();

    /**
     * Firings at every whole multiple of {@code period} since 1970-01-01T00:00Z ({@code every 1m} at each
     * whole minute, {@code every 1h} at each whole hour of UTC), so that every node computes the same ones.
     *
     * @throws IllegalArgumentException when {@code period} is shorter than a second
     */
    static Schedule every(Duration period) {
        return new FixedRate(period);
    }
}
