package io.shardscan.autoconfigure;

import io.shardscan.core.task.InvalidTaskException;
import io.shardscan.core.task.Schedule;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.support.CronExpression;

/**
 * When one task's runs start by themselves, under {@code scan.tasks.<name>.schedule.*}: a cron in a time
 * zone, or a fixed rate; off unless one of them is set.
 */
public class ScheduleProperties {

    /** A cron in Spring's six fields (second minute hour day-of-month month day-of-week), e.g. 0 0 2 * * * for 02:00 every day; each firing starts one run of the task. */
    private @Nullable String cron;

    /** The time zone whose wall clock cron reads, e.g. Europe/Berlin; unset, the JVM's default zone, which every node must then share. */
    private @Nullable String zone;

    /** Instead of cron, a fixed rate: a firing at each whole multiple of it since 1970-01-01T00:00Z, e.g. 1m or 1h; at least 1s; needs a unit. */
    private @Nullable Duration every;

    /**
     * The schedule of these settings.
     *
     * @return {@code null} when neither {@code cron} nor {@code every} is set: the task has no schedule
     * @throws InvalidTaskException naming the property and the fix when the settings cannot work
     */
    @Nullable
    Schedule toSchedule(String task) {
        String property = "scan.tasks." + task + ".schedule.";
        if (cron != null && every != null) {
            throw new InvalidTaskException(property + "cron and " + property + "every are both set: a schedule is"
                    + " one of them; keep cron for times of the day (e.g. 0 0 2 * * *) or every for a fixed rate"
                    + " (e.g. 1m), and remove the other");
        }
        if (cron == null && every == null) {
            if (zone != null) {
                throw new InvalidTaskException(property + "zone is set but neither " + property + "cron nor "
                        + property + "every is: set cron (e.g. 0 0 2 * * *), whose wall clock zone sets, or remove"
                        + " zone");
            }
            return null;
        }
        if (every != null) {
            if (zone != null) {
                throw new InvalidTaskException(property + "zone is set with every, which fires at whole multiples of"
                        + " its duration since 1970-01-01T00:00Z in any zone: remove zone, or write the times as a"
                        + " cron (e.g. cron: 0 0 2 * * *) in that zone");
            }
            if (every.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new InvalidTaskException(property + "every must be at least 1s (was " + every + "): firings"
                        + " are looked for at each lease tick (scan.renew-interval), so closer ones would run as one;"
                        + " write it with a unit, e.g. 1m");
            }
            return Schedule.every(every);
        }
        String written = cron.trim();
        CronExpression expression;
        try {
            expression = CronExpression.parse(written);
        } catch (IllegalArgumentException e) {
            int fields = written.split("\\s+").length;
            throw new InvalidTaskException(property + "cron '" + written + "' is not a cron expression ("
                    + e.getMessage() + "): write Spring's six fields, second minute hour day-of-month month"
                    + " day-of-week, e.g. 0 0 2 * * * (02:00 every day) or 0 */5 * * * * (every 5 minutes)"
                    + (fields == 5 ? "; a Unix cron's five fields need a seconds field first: 0 " + written : ""));
        }
        ZoneId id;
        try {
            id = zone == null ? ZoneId.systemDefault() : ZoneId.of(zone.trim());
        } catch (DateTimeException e) {
            throw new InvalidTaskException(property + "zone '" + zone + "' is not a time zone (" + e.getMessage()
                    + "): write a region id such as Europe/Berlin, America/New_York or UTC");
        }
        Schedule schedule = new CronSchedule(expression, id, written);
        if (schedule.next(Instant.now()) == null) {
            throw new InvalidTaskException(property + "cron '" + written + "' never fires (no date matches it, such"
                    + " as the 30th of February): correct its day-of-month, month or day-of-week");
        }
        return schedule;
    }

    public @Nullable String getCron() {
        return cron;
    }

    public void setCron(@Nullable String cron) {
        this.cron = cron;
    }

    public @Nullable String getZone() {
        return zone;
    }

    public void setZone(@Nullable String zone) {
        this.zone = zone;
    }

    public @Nullable Duration getEvery() {
        return every;
    }

    public void setEvery(@Nullable Duration every) {
        this.every = every;
    }
}
