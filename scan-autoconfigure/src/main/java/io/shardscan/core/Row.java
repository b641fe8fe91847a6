package io.shardscan.core;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;

/**
 * One fetched row. Immutable.
 *
 * @param id the row's id (the keyset column)
 * @param shardKey the value of the shard-key column; rows of one key share a shard and a lane
 * @param retries how often the row failed before
 * @param columns every non-NULL column of the row by its name as the database reports it, in lower case
 */
public record Row(long id, long shardKey, int retries, Map<String, Object> columns) {

    public Row {
        Objects.requireNonNull(columns, "columns");
        if (!(columns instanceof Columns)) {
            columns = Map.copyOf(columns);
        }
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
            if (values.length != names.size()) {
                throw new IllegalArgumentException(values.length + " values for " + names.size() + " columns");
            }
            return new Row(id, shardKey, retries, new Columns(this, values));
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

    /** The non-NULL values of one row over its page's {@link Layout}. */
    private static final class Columns extends AbstractMap<String, Object> {

        private final Layout layout;
        private final Object[] values;
        private final int size;

        Columns(Layout layout, Object[] values) {
            this.layout = layout;
            this.values = values;
            int present = 0;
            for (Object value : values) {
                if (value != null) {
                    present++;
                }
            }
            this.size = present;
        }

        @Override
        public Object get(Object name) {
            Integer position = name instanceof String key ? layout.positions.get(key) : null;
            return position == null ? null : read(position);
        }

        @Override
        public boolean containsKey(Object name) {
            return get(name) != null;
        }

        @Override
        public int size() {
            return size;
        }

        @Override
        public Set<Entry<String, Object>> entrySet() {
            return new AbstractSet<>() {
                @Override
                public Iterator<Entry<String, Object>> iterator() {
                    return new Iterator<>() {
                        private int next = skipNulls(0);

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
                            next = skipNulls(next + 1);
                            return entry;
                        }
                    };
                }

                @Override
                public int size() {
                    return size;
                }
            };
        }

        private Object read(int position) {
            Object value = values[position];
            return value instanceof Deferred deferred ? deferred.value() : value;
        }

        private int skipNulls(int from) {
            int position = from;
            while (position < values.length && values[position] == null) {
                position++;
            }
            return position;
        }
    }
}
