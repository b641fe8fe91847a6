package io.shardscan.core.task;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * {@link Schedule#every}: a firing at every whole multiple of the period since the epoch, in whole
 * milliseconds. Anchored at the epoch, not at a node's start, so every node computes the same firings
 * and a restart moves none.
 *
 * @param period the time between two firings
 */
record FixedRate(Duration period) implements Schedule {

    /**
     * The shortest period: firings are looked for at each lease tick ({@code scan.renew-interval}, 2 s by
     * default), so closer ones collapse into one run; a bare number bound as milliseconds ({@code every: 60})
     * would otherwise start a run per tick.
     */
    static final Duration MIN_PERIOD = Duration.ofSeconds(1);

    FixedRate {
        Objects.requireNonNull(period, "period");
        if (period.compareTo(MIN_PERIOD) < 0) {
            throw new IllegalArgumentException("a schedule's period must be at least 1s (was " + period + "), e.g. 1m");
        }
    }

    @Override
    public Instant next(Instant after) {
        long millis = period.toMillis();
        return Instant.ofEpochMilli(Math.floorDiv(after.toEpochMilli(), millis) * millis + millis);
    }

    @Override
    public String describe() {
        return "every " + written(period);
    }

    /** The period in its largest whole unit, as it would be written: {@code 1m}, {@code 90s}, {@code 1500ms}. */
    static String written(Duration period) {
        long millis = period.toMillis();
        long[] units = {86_400_000, 3_600_000, 60_000, 1_000};
        String[] names = {"d", "h", "m", "s"};
        for (int i = 0; i < units.length; i++) {
            if (millis % units[i] == 0) {
                return millis / units[i] + names[i];
            }
        }
        return millis + "ms";
    }
}
