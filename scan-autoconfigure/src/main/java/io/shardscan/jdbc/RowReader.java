package io.shardscan.jdbc;

import io.shardscan.core.task.Row;
import io.shardscan.core.task.TextKeys;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Reads fetched pages into {@link Row}s, and the engine's own columns (ids, shard keys, due times) of
 * other reads as the engine holds them. Thread-safe.
 */
final class RowReader {

    private final Map<String, Row.Layout> layouts = new ConcurrentHashMap<>();

    /**
     * Reads a page: the column names once, then one array of values per row. Pages of one task with
     * the same columns share one layout, so a handler resolves its columns' positions once.
     */
    List<Row> rows(ResultSet rs, String task, TableNames names, int limit) throws SQLException {
        ResultSetMetaData meta = rs.getMetaData();
        int count = meta.getColumnCount();
        List<String> labels = new ArrayList<>(count);
        for (int i = 1; i <= count; i++) {
            labels.add(meta.getColumnLabel(i).toLowerCase(Locale.ROOT));
        }
        Row.Layout layout = layouts.get(task);
        if (layout == null || !layout.names().equals(labels)) {
            layout = new Row.Layout(labels);
            layouts.put(task, layout);
        }
        ColumnValues.Kind[] kinds = ColumnValues.kinds(meta);
        int updated = layout.position(names.updatedAt().toLowerCase(Locale.ROOT));
        if (updated >= 0 && kinds[updated] == ColumnValues.Kind.LOCAL_TIMESTAMP) {
            kinds[updated] = ColumnValues.Kind.UTC_TIMESTAMP;
        }
        int id = column(layout, names.id());
        int shardKey = column(layout, names.shardKey());
        int retries = column(layout, names.retries());
        int due = names.dueAt() == null ? -1 : column(layout, names.dueAt());
        List<Row> page = new ArrayList<>(Math.min(limit, 1024));
        while (rs.next()) {
            Object[] values = new Object[count];
            for (int i = 0; i < count; i++) {
                values[i] = ColumnValues.read(rs, i + 1, kinds[i]);
            }
            Object idValue = values[id - 1];
            String textId = TextKeys.isText(idValue) ? idValue.toString() : null;
            long rowId = textId != null
                    ? TextKeys.identity(textId)
                    : whole(idValue) ? ((Number) idValue).longValue() : rs.getLong(id);
            long key = shardKey(rs, shardKey, values[shardKey - 1]);
            int tries = whole(values[retries - 1]) ? ((Number) values[retries - 1]).intValue() : rs.getInt(retries);
            page.add(layout.row(rowId, key, tries, due < 0 ? null : instant(rs.getTimestamp(due)), textId, values));
        }
        return page;
    }

    /**
     * Whether a value read for the engine's own columns is the integer the driver's {@code getLong}
     * or {@code getInt} would decode again: then it is taken as read, else (NULL, a decimal, text)
     * the driver converts the column as before.
     */
    static boolean whole(@Nullable Object value) {
        return value instanceof Long || value instanceof Integer || value instanceof Short;
    }

    /**
     * A row's shard key as the engine tells keys apart, from the value read at {@code index}: a whole
     * number as it is, text or a UUID by {@link TextKeys#identity}, anything else (a decimal, NULL) as
     * the driver's {@code getLong} converts it.
     */
    static long shardKey(ResultSet rs, int index, @Nullable Object value) throws SQLException {
        if (whole(value)) {
            return ((Number) value).longValue();
        }
        return TextKeys.isText(value) ? TextKeys.identity(value) : rs.getLong(index);
    }

    /**
     * A row's id as {@link io.shardscan.core.task.Row#idValue()} holds it, read at {@code index}: the text of
     * a text or UUID id, else a {@code Long}.
     */
    static Object id(ResultSet rs, int index) throws SQLException {
        Object value = rs.getObject(index);
        return TextKeys.isText(value) ? value.toString() : (Object) rs.getLong(index);
    }

    /** The number the engine tells an id apart by: a whole id itself, a text id's {@link TextKeys#identity}. */
    static long number(Object id) {
        return id instanceof String text ? TextKeys.identity(text) : (Long) id;
    }

    /**
     * A due time as the keyset binds it back: read and bound as {@link Timestamp}, so both sides
     * convert the column's value in the same zone.
     */
    static @Nullable Instant instant(@Nullable Timestamp value) {
        return value == null ? null : value.toInstant();
    }

    /** The 1-based result-set index of a task column. */
    static int column(Row.Layout layout, String name) throws SQLException {
        int position = layout.position(name.toLowerCase(Locale.ROOT));
        if (position < 0) {
            throw new SQLException("the fetch returned no column " + name);
        }
        return position + 1;
    }
}
