package io.shardscan.core.task;

import java.time.Instant;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One fetched row. Immutable.
 *
 * @param id the row's id (the keyset column) when it is a whole number; for a text or UUID id the
 *     number the engine tells it apart by ({@link TextKeys#identity}), with its text in {@code textId}
 * @param shardKey the value of the shard-key column; rows of one key share a shard and a lane
 * @param retries how often the row failed before
 * @param columns every column of the row by its name as the database reports it, in lower case; a
 *     NULL column is present with a {@code null} value, so a handler taking the map sees every column
 *     ({@code containsKey} is true, {@code get} is {@code null})
 * @param dueAt when the row became due, for a task with a due-at column: with the id, its place in
 *     the fetch and in its key's order; {@code null} for a task without one
 * @param textId the text of a text or UUID id (a UUID's in lower case), which orders the row among
 *     others; {@code null} for a whole-number id
 */
public record Row(
        long id,
        long shardKey,
        int retries,
        Map<String, Object> columns,
        @Nullable Instant dueAt,
        @Nullable String textId) {

    public Row {
        Objects.requireNonNull(columns, "columns");
        if (!(columns instanceof Columns)) {
            // not Map.copyOf: it refuses null values, and a NULL column is one
            Map<String, Object> copy = new LinkedHashMap<>(columns);
            columns = new Columns(
                    new Layout(List.copyOf(copy.keySet())), copy.values().toArray());
        }
    }

    /** A row with a whole-number id. */
    public Row(long id, long shardKey, int retries, Map<String, Object> columns, @Nullable Instant dueAt) {
        this(id, shardKey, retries, columns, dueAt, null);
    }

    /** A row with a whole-number id, of a task without a due-at column. */
    public Row(long id, long shardKey, int retries, Map<String, Object> columns) {
        this(id, shardKey, retries, columns, null);
    }

    /**
     * The id as a store binds it: a {@code Long} for a whole-number id, the text of a text or UUID id
     * ({@link #textId()}).
     */
    public Object idValue() {
        return textId != null ? textId : (Object) id;
    }

    /** This row's place in the fetch order and its key, as {@link RowKey#ORDER} compares them. */
    public RowKey key() {
        return new RowKey(shardKey, id, dueAt, textId);
    }

    /** The names and positions of this row's columns, shared by every row of its fetched page. */
    public Layout layout() {
        return ((Columns) columns).layout;
    }

    /**
     * The value of the column at {@code position} of {@link #layout()}, decoded now when the store
     * deferred it; only that column is decoded.
     *
     * @return {@code null} for a NULL column
     * @throws IndexOutOfBoundsException when the layout has no such position
     */
    public @Nullable Object value(int position) {
        return ((Columns) columns).read(position);
    }

    /**
     * The column names of one fetched page, read once and shared by all its rows, so that a row
     * costs one array of values instead of a map of its own. Immutable.
     */
    public static final class Layout {

        private final List<String> names;
        private final Map<String, Integer> positions;

        /**
         * @param names the columns in result-set order, as {@link Row#columns()} reports them
         * @throws IllegalArgumentException when a name occurs twice
         */
        public Layout(List<String> names) {
            this.names = List.copyOf(names);
            this.positions = new HashMap<>();
            for (int i = 0; i < this.names.size(); i++) {
                if (positions.put(this.names.get(i), i) != null) {
                    throw new IllegalArgumentException("column " + this.names.get(i) + " occurs twice in " + names);
                }
            }
        }

        /** The column names in position order. */
        public List<String> names() {
            return names;
        }

        /** The position of a column in this layout's values, or -1 when it has none of that name. */
        public int position(String name) {
            return positions.getOrDefault(name, -1);
        }

        /**
         * A row with {@code values} in this layout's order, a {@code null} value being a NULL
         * column and a {@link Deferred} one being decoded each time it is read. The array is taken
         * as it is: the caller must not change it afterwards.
         */
        public Row row(long id, long shardKey, int retries, Object[] values) {
            return row(id, shardKey, retries, null, values);
        }

        /** The same, for a row of a task with a due-at column, which became due at {@code dueAt}. */
        public Row row(long id, long shardKey, int retries, @Nullable Instant dueAt, Object[] values) {
            return row(id, shardKey, retries, dueAt, null, values);
        }

        /** The same, for a row whose id is text or a UUID with the text {@code textId} (see {@link Row}). */
        public Row row(
                long id,
                long shardKey,
                int retries,
                @Nullable Instant dueAt,
                @Nullable String textId,
                Object[] values) {
            if (values.length != names.size()) {
                throw new IllegalArgumentException(values.length + " values for " + names.size() + " columns");
            }
            return new Row(id, shardKey, retries, new Columns(this, values), dueAt, textId);
        }
    }

    /**
     * A column value that a store decodes only when it is read, because the engine itself reads
     * only the id, shard key and retries, and decoding some types (timestamps) costs more than the
     * rest of the fetch. {@link Row#columns()} returns {@link #value()}, never the deferred value.
     */
    @FunctionalInterface
    public interface Deferred {
        Object value();
    }

    /** The values of one row over its page's {@link Layout}, NULL columns included. */
    private static final class Columns extends AbstractMap<String, Object> {

        private final Layout layout;
        private final Object[] values;

        Columns(Layout layout, Object[] values) {
            this.layout = layout;
            this.values = values;
        }

        @Override
        public Object get(Object name) {
            Integer position = name instanceof String key ? layout.positions.get(key) : null;
            return position == null ? null : read(position);
        }

        @Override
        public boolean containsKey(Object name) {
            return name instanceof String key && layout.positions.containsKey(key);
        }

        @Override
        public int size() {
            return values.length;
        }

        @Override
        public Set<Entry<String, Object>> entrySet() {
            return new AbstractSet<>() {
                @Override
                public Iterator<Entry<String, Object>> iterator() {
                    return new Iterator<>() {
                        private int next;

                        @Override
                        public boolean hasNext() {
                            return next < values.length;
                        }

                        @Override
                        public Entry<String, Object> next() {
                            if (!hasNext()) {
                                throw new NoSuchElementException();
                            }
                            Entry<String, Object> entry =
                                    new SimpleImmutableEntry<>(layout.names.get(next), read(next));
                            next++;
                            return entry;
                        }
                    };
                }

                @Override
                public int size() {
                    return values.length;
                }
            };
        }

        private Object read(int position) {
            Object value = values[position];
            return value instanceof Deferred deferred ? deferred.value() : value;
        }
    }
}
