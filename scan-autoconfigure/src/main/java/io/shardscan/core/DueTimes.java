package io.shardscan.core;

import io.shardscan.core.task.RetryRules;
import io.shardscan.core.task.Row;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Since when fetched rows have been due, for a round's wait figure: a fresh row since it was
 * written (or its due-at), a failed one since its tier's interval passed after its last failure.
 * Stateless.
 */
final class DueTimes {

    private DueTimes() {}

    /**
     * The earliest instant any row of {@code page} has been due since: its {@link Row#dueAt()} for a
     * task with a due-at column, else by its {@code updatedAtColumn} and its tier's interval (a failed
     * row of a delayed task: the later of the two); {@code null} when no row tells.
     */
    static @Nullable Instant oldest(RetryRules rules, List<Row> page, String updatedAtColumn) {
        String column = updatedAtColumn.toLowerCase(Locale.ROOT);
        Instant oldest = null;
        for (Row row : page) {
            Instant due = dueSince(rules, row, column);
            if (due != null && (oldest == null || due.isBefore(oldest))) {
                oldest = due;
            }
        }
        return oldest;
    }

    private static @Nullable Instant dueSince(RetryRules rules, Row row, String updatedAtColumn) {
        Instant dueAt = row.dueAt();
        if (dueAt != null && row.retries() == 0) {
            return dueAt;
        }
        Instant updated = instant(row.columns().get(updatedAtColumn));
        if (updated == null) {
            return dueAt;
        }
        Instant due = row.retries() == 0
                ? updated
                : updated.plus(rules.tierOf(row.retries()).interval());
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
