package io.shardscan.core;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The one place that decides what a failure means for a task: which tier a retry count is in,
 * whether the last tier is open-ended, when a row has run out of tiers and is dead, which rows a
 * tier fetches and when they are due (fresh rows always, failed rows once their tier's interval
 * has passed since their last failure). Immutable.
 */
public final class RetryRules {

    private final List<Tier> tiers;
    private final OnExhausted onExhausted;

    RetryRules(List<Tier> tiers, OnExhausted onExhausted) {
        this.tiers = List.copyOf(tiers);
        this.onExhausted = onExhausted;
    }

    /** The tier of a row that failed {@code retries} times: the last tier for a count past it. */
    public Tier tierOf(int retries) {
        for (Tier tier : tiers) {
            if (tier.covers(retries)) {
                return tier;
            }
        }
        return tiers.get(tiers.size() - 1);
    }

    /** The longest interval of any tier: how long a failed row may rest before it is fetched again. */
    public Duration longestInterval() {
        return tiers.stream().map(Tier::interval).max(Duration::compareTo).orElseThrow();
    }

    /** Whether the task fetches failed rows at all: some tier covers a retry count above 0. */
    public boolean retries() {
        return tiers.stream().anyMatch(tier -> tier.maxRetries() > 0);
    }

    /** Whether {@code tier} has no upper bound: the last tier of a task that keeps retrying. */
    public boolean openEnded(Tier tier) {
        return onExhausted == OnExhausted.KEEP_RETRYING && tier.equals(tiers.get(tiers.size() - 1));
    }

    /**
     * How many times a range task tries a failing row again at once before it records it as failed:
     * the last tier's highest retry count. A range must move on, so a task that keeps retrying stops
     * there too, and the tiers' intervals are not waited (its position would stall meanwhile).
     */
    public int inPlaceRetries() {
        return tiers.get(tiers.size() - 1).maxRetries();
    }

    /** Whether a row that has now failed {@code retries} times has run out of tiers and is dead. */
    public boolean exhausted(int retries) {
        return onExhausted == OnExhausted.DEAD
                && retries > tiers.get(tiers.size() - 1).maxRetries();
    }

    /** What the write-back records for {@code outcome} of a row that had failed {@code retries} times. */
    public Outcome.Kind recorded(int retries, Outcome outcome) {
        return outcome.kind() == Outcome.Kind.RETRY && exhausted(retries + 1) ? Outcome.Kind.DEAD : outcome.kind();
    }

    /**
     * The page of {@code tier} to read next in {@code shard}, after the keyset position. Its failed
     * rows are due once they rested the tier's interval by the store's clock: the node's clock never
     * takes part, so nodes whose clocks differ agree on when a row is due.
     */
    FetchRequest fetch(int shard, Tier tier, @Nullable Instant afterDue, long afterId, int limit) {
        return fetch(shard, tier, afterDue, afterId, null, limit, List.of());
    }

    /**
     * The same after a text id when {@code afterText} is not {@code null}, leaving out the rows of
     * {@code excludedEndpoints}.
     */
    FetchRequest fetch(
            int shard,
            Tier tier,
            @Nullable Instant afterDue,
            long afterId,
            @Nullable String afterText,
            int limit,
            List<String> excludedEndpoints) {
        return new FetchRequest(
                shard,
                tier.minRetries(),
                openEnded(tier) ? Integer.MAX_VALUE : tier.maxRetries(),
                tier.maxRetries() > 0 ? tier.interval() : null,
                afterDue,
                afterId,
                afterText,
                limit,
                excludedEndpoints);
    }

    /**
     * Since when a row that failed {@code retries} times, last updated at {@code updatedAt}, has been
     * due: a fresh row since then, a failed one since its tier's interval passed.
     */
    Instant dueSince(int retries, Instant updatedAt) {
        return retries == 0 ? updatedAt : updatedAt.plus(tierOf(retries).interval());
    }

    /**
     * The earliest instant any row of {@code page} has been due since: its {@link Row#dueAt()} for a
     * task with a due-at column, else by {@link #dueSince} of its {@code updatedAtColumn} (a failed row
     * of a delayed task: the later of the two); {@code null} when no row tells.
     */
    @Nullable
    Instant oldestDue(List<Row> page, String updatedAtColumn) {
        String column = updatedAtColumn.toLowerCase(Locale.ROOT);
        Instant oldest = null;
        for (Row row : page) {
            Instant due = dueSince(row, column);
            if (due != null && (oldest == null || due.isBefore(oldest))) {
                oldest = due;
            }
        }
        return oldest;
    }

    private @Nullable Instant dueSince(Row row, String updatedAtColumn) {
        Instant dueAt = row.dueAt();
        if (dueAt != null && row.retries() == 0) {
            return dueAt;
        }
        Instant updated = instant(row.columns().get(updatedAtColumn));
        if (updated == null) {
            return dueAt;
        }
        Instant due = dueSince(row.retries(), updated);
        return dueAt != null && dueAt.isAfter(due) ? dueAt : due;
    }

    /** A timestamp column's value as an instant; a zone-less one in the JVM's zone, as JDBC reads and writes it. */
    private static @Nullable Instant instant(@Nullable Object value) {
        if (value instanceof Timestamp timestamp) {
            return timestamp.toInstant();
        }
        if (value instanceof Instant instant) {
            return instant;
        }
        if (value instanceof OffsetDateTime time) {
            return time.toInstant();
        }
        if (value instanceof ZonedDateTime time) {
            return time.toInstant();
        }
        if (value instanceof LocalDateTime time) {
            return time.atZone(ZoneId.systemDefault()).toInstant();
        }
        return null;
    }
}
