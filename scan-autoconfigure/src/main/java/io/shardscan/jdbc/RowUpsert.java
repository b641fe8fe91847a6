package io.shardscan.jdbc;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Writes one row by its primary key: inserts it, or updates the row with that key. One statement
 * where the dialect has an {@link SqlDialect#upsert upsert} (MySQL, MariaDB); else an
 * UPDATE, then an INSERT when it changed no row, which meets a duplicate key when another node
 * inserted the row meanwhile: a caller for which that can happen runs its transaction once more,
 * whose UPDATE finds the row. Runs in the caller's transaction. Immutable.
 *
 * @param table the table, as the statements name it
 * @param key the primary key's columns
 * @param columns the columns an insert fills, comma separated
 * @param values their values, with {@code ?} for parameters
 * @param updates the assignments to a present row, whose expressions name its columns qualified by
 *     the table
 */
record RowUpsert(String table, List<String> key, String columns, String values, String updates) {

    /**
     * Inserts or updates the row.
     *
     * @param keyArgs the key's values, in the order of {@code key}
     * @param valueArgs the parameters of {@code values}
     * @param updateArgs the parameters of {@code updates}
     */
    void write(JdbcTemplate jdbc, SqlDialect dialect, Object[] keyArgs, Object[] valueArgs, Object[] updateArgs) {
        String inOne = dialect.upsert(table, String.join(", ", key), columns, values, updates);
        if (inOne != null) {
            jdbc.update(inOne, concat(valueArgs, updateArgs));
            return;
        }
        String byKey = key.stream().map(column -> column + " = ?").collect(Collectors.joining(" AND "));
        int updated =
                jdbc.update("UPDATE " + table + " SET " + updates + " WHERE " + byKey, concat(updateArgs, keyArgs));
        if (updated == 0) {
            jdbc.update("INSERT INTO " + table + " (" + columns + ") VALUES (" + values + ")", valueArgs);
        }
    }

    private static Object[] concat(Object[] first, Object[] second) {
        Object[] both = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }
}
