package io.shardscan.autoconfigure;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.convert.DurationUnit;

/** One failure tier of a task, under {@code scan.tasks.<name>.tiers[i].*}. */
public class TierProperties {

    /** The retry counts of this tier: a count such as 0 or a range such as 1-5. */
    private @Nullable String retries;

    /** How often this tier is scanned when empty, and how long a failed row of it rests. */
    @DurationUnit(ChronoUnit.SECONDS)
    private @Nullable Duration interval;

    public TierProperties() {}

    public TierProperties(@Nullable String retries, @Nullable Duration interval) {
        this.retries = retries;
        this.interval = interval;
    }

    public @Nullable String getRetries() {
        return retries;
    }

    public void setRetries(@Nullable String retries) {
        this.retries = retries;
    }

    public @Nullable Duration getInterval() {
        return interval;
    }

    public void setInterval(@Nullable Duration interval) {
        this.interval = interval;
    }
}
