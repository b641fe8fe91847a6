package io.shardscan.actuate;

import io.shardscan.core.ScheduleStatus;
import io.shardscan.core.spi.Firing;
import java.time.Instant;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * A scheduled task's schedule ({@code scan.tasks.<name>.schedule}) as this node last read it. Immutable.
 *
 * @param schedule as configured, e.g. {@code cron 0 0 2 * * * Europe/Berlin} or {@code every 1m}
 * @param nextFiring when the next run starts, unless the current one still runs then; {@code null} when
 *     the schedule never fires again
 * @param lastFiring what the last firing did on any node: {@code started} (the next run) or
 *     {@code skipped} (the run still ran); {@code null} before the first firing
 * @param lastFiredAt when the node that handled the last firing did so; {@code null} before the first
 * @param lastFiredBy that node; {@code null} before the first firing
 * @param startedHere firings whose run this node started since it started
 * @param skippedHere firings this node recorded as skipped since it started
 */
public record ScheduleDescriptor(
        String schedule,
        @Nullable Instant nextFiring,
        @Nullable String lastFiring,
        @Nullable Instant lastFiredAt,
        @Nullable String lastFiredBy,
        long startedHere,
        long skippedHere) {

    /** Describes {@code status}; {@code null} for a task without a schedule. */
    static @Nullable ScheduleDescriptor of(@Nullable ScheduleStatus status) {
        if (status == null) {
            return null;
        }
        Firing last = status.last();
        boolean fired = last != null && last.kind() != Firing.Kind.SEEN;
        return new ScheduleDescriptor(
                status.schedule(),
                status.nextFiring(),
                fired ? last.kind().name().toLowerCase(Locale.ROOT) : null,
                fired ? last.at() : null,
                fired ? last.by() : null,
                status.startedHere(),
                status.skippedHere());
    }
}
