package io.shardscan.dashboard;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One row of a task as the dashboard's API sends it: every column as text to show, {@code null} for
 * NULL, booleans as they are. Numbers go as their digits, exact (JavaScript would round a whole number
 * above 2^53 - 1, such as an id); a timestamp that holds an instant as ISO-8601 with its offset
 * ({@code 2026-03-01T10:00:00Z}, the engine's zone-less updated-at column as UTC, {@code Z}); any other
 * zone-less timestamp as ISO-8601 without an offset, as stored ({@code 2026-03-01T12:00:00}): the
 * table does not say its zone. Immutable.
 *
 * @param task the task
 * @param id the row's id as asked for
 * @param columns the row's columns by name as the store spells them, in table order
 */
record RowDescriptor(String task, String id, Map<String, @Nullable Object> columns) {

    RowDescriptor {
        columns = Collections.unmodifiableMap(new LinkedHashMap<>(columns));
    }

    static RowDescriptor of(String task, String id, Map<String, Object> row) {
        Map<String, @Nullable Object> columns = new LinkedHashMap<>();
        row.forEach((column, value) -> columns.put(column, shown(value)));
        return new RowDescriptor(task, id, columns);
    }

    private static @Nullable Object shown(@Nullable Object value) {
        if (value == null || value instanceof Boolean || value instanceof String) {
            return value;
        }
        if (value instanceof BigDecimal decimal) {
            return decimal.toPlainString();
        }
        if (value instanceof Number) {
            return value.toString();
        }
        if (value instanceof OffsetDateTime time) {
            return DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(time);
        }
        if (value instanceof ZonedDateTime time) {
            return DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(time);
        }
        if (value instanceof Instant instant) {
            return DateTimeFormatter.ISO_INSTANT.format(instant);
        }
        if (value instanceof LocalDateTime time) {
            return DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(time);
        }
        return value instanceof byte[] bytes ? bytes.length + " bytes" : value.toString();
    }
}
