package io.shardscan.core;

import io.shardscan.core.spi.Firing;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A scheduled task's schedule as this node last read it, for endpoints, metrics and tests; reading it
 * runs no statement. Immutable.
 *
 * @param schedule the schedule as configured, e.g. {@code cron 0 0 2 * * * Europe/Berlin} or {@code every 1m}
 * @param nextFiring the next firing: the schedule's first after the last record ({@code null}: it never
 *     fires again); before this node read the record, the first after now
 * @param last the last firing record of any node, as this node last read it; {@code null} before its
 *     first read
 * @param startedHere firings whose run this node started since it started
 * @param skippedHere firings this node recorded as skipped, because the task's run still ran, since it started
 */
public record ScheduleStatus(
        String schedule,
        @Nullable Instant nextFiring,
        @Nullable Firing last,
        long startedHere,
        long skippedHere) {}
