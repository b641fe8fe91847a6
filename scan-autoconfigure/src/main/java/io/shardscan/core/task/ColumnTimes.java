package io.shardscan.core.task;

import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Date;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The one rule for binding a timestamp column to a handler's date-time type, for the record and
 * bean binders and the MyBatis mapper alike. A driver returns a {@link Timestamp} for
 * {@code timestamp}, {@code timestamptz}, {@code DATETIME}: the instant it read, shown in this
 * JVM's zone. So {@link Instant}, {@link OffsetDateTime} and {@link ZonedDateTime} are that
 * instant (the latter two at the JVM's zone, as a {@link LocalDateTime} of the same row reads);
 * {@link LocalDateTime} and {@link LocalDate} its wall-clock in the JVM's zone. Stateless.
 */
public final class ColumnTimes {

    /** The types {@link #fromTimestamp} converts to. */
    public static final Set<Class<?>> TARGETS = Set.of(
            Instant.class, OffsetDateTime.class, ZonedDateTime.class, LocalDateTime.class, LocalDate.class, Date.class);

    private ColumnTimes() {}

    /**
     * The timestamp as {@code type}.
     *
     * @return {@code null} when {@code type} is none of {@link #TARGETS}
     */
    public static @Nullable Object fromTimestamp(Timestamp timestamp, Class<?> type) {
        if (type == Instant.class) {
            return timestamp.toInstant();
        }
        if (type == OffsetDateTime.class) {
            return timestamp.toInstant().atZone(ZoneId.systemDefault()).toOffsetDateTime();
        }
        if (type == ZonedDateTime.class) {
            return timestamp.toInstant().atZone(ZoneId.systemDefault());
        }
        if (type == LocalDateTime.class) {
            return timestamp.toLocalDateTime();
        }
        if (type == LocalDate.class) {
            return timestamp.toLocalDateTime().toLocalDate();
        }
        if (type == Date.class) {
            return new Date(timestamp.getTime());
        }
        return null;
    }
}
