package io.shardscan.actuate;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.shardscan.core.Backlog;
import io.shardscan.core.ScanClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The backlog gauges of a tier, read from the background counter's last count, so a scrape runs no
 * query: {@code scan.backlog} (pending rows) and {@code scan.backlog.oldest.age} (how long the oldest
 * due row has waited, in seconds). Both are NaN before the task's first count. Thread-safe.
 */
final class BacklogMetrics {

    /** A clock that stands at the epoch, for counts stamped with it: they are never aged. */
    private static final ScanClock EPOCH = new ScanClock() {
        @Override
        public Instant now() {
            return Instant.EPOCH;
        }

        @Override
        public long nanos() {
            return 0;
        }
    };

    private final Function<String, ScanBacklogs.@Nullable Count> cachedCount;
    private final ScanClock clock;

    /**
     * @param cachedCount a task's last count with when {@code clock} says it was taken, {@code null} before one
     * @param clock the clock that stamped the counts
     */
    BacklogMetrics(Function<String, ScanBacklogs.@Nullable Count> cachedCount, ScanClock clock) {
        this.cachedCount = Objects.requireNonNull(cachedCount, "cachedCount");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Gauges of a cache that does not say when it counted: the ages are those of the count. */
    static BacklogMetrics unaged(Function<String, @Nullable Backlog> cachedBacklog) {
        Objects.requireNonNull(cachedBacklog, "cachedBacklog");
        return new BacklogMetrics(
                task -> {
                    Backlog backlog = cachedBacklog.apply(task);
                    return backlog == null ? null : new ScanBacklogs.Count(backlog, EPOCH.now());
                },
                EPOCH);
    }

    void bind(MeterRegistry registry, String task, String tier) {
        Gauge.builder("scan.backlog", () -> pending(task, tier))
                .description("Pending rows of the tier as last counted, NaN before the first count")
                .baseUnit(BaseUnits.ROWS)
                .tags("task", task, "tier", tier)
                .register(registry);
        Gauge.builder("scan.backlog.oldest.age", () -> oldestAge(task, tier))
                .description("Seconds the tier's oldest due pending row has waited (a failed row since its last"
                        + " failure, a delayed row since it became due): its age at the last backlog count plus"
                        + " the time since; 0 when none was due, NaN before the first count")
                .baseUnit("seconds")
                .tags("task", task, "tier", tier)
                .register(registry);
    }

    private double pending(String task, String tier) {
        Backlog.TierBacklog counted = tier(cachedCount.apply(task), tier);
        return counted == null ? Double.NaN : counted.pending();
    }

    /**
     * The oldest due row's age at the count plus the time since, by the clock that stamped the count:
     * a count that fails, or a quiet task's that is not due yet, leaves the age growing instead of
     * standing still, which is what a lag alert needs. A tier without a due row at the count stays at 0.
     */
    private double oldestAge(String task, String tier) {
        ScanBacklogs.Count count = cachedCount.apply(task);
        Backlog.TierBacklog counted = tier(count, tier);
        if (count == null || counted == null) {
            return Double.NaN;
        }
        if (counted.pending() - counted.notYetDue() - counted.withoutDueTime() <= 0) {
            return 0;
        }
        long sinceMillis = Duration.between(count.takenAt(), clock.now()).toMillis();
        return counted.oldestPendingAgeSeconds() + Math.max(0, sinceMillis) / 1000.0;
    }

    private static Backlog.@Nullable TierBacklog tier(ScanBacklogs.@Nullable Count count, String tier) {
        if (count == null) {
            return null;
        }
        return count.backlog().tiers().stream()
                .filter(t -> t.retries().equals(tier))
                .findFirst()
                .orElse(null);
    }
}
