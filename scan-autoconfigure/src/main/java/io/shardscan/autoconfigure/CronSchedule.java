package io.shardscan.autoconfigure;

import io.shardscan.core.task.Schedule;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.support.CronExpression;

/**
 * A {@link Schedule} of a cron expression in a time zone ({@code scan.tasks.<name>.schedule.cron} and
 * {@code zone}), by Spring's {@link CronExpression}: the syntax of {@code @Scheduled(cron = …)}, its
 * daylight-saving rules included. Immutable.
 *
 * @param cron the parsed expression
 * @param zone the zone whose wall clock the expression's fields read
 * @param written the expression as configured, for {@link #describe()}
 */
record CronSchedule(CronExpression cron, ZoneId zone, String written) implements Schedule {

    @Override
    public @Nullable Instant next(Instant after) {
        ZonedDateTime next = cron.next(after.atZone(zone));
        return next == null ? null : next.toInstant();
    }

    @Override
    public String describe() {
        return "cron " + written + " " + zone.getId();
    }
}
