package io.shardscan.jdbc;

import org.jspecify.annotations.Nullable;

/**
 * A task's table and columns with the spelling the database uses, resolved from its metadata so
 * that quoting them never changes which object they name.
 */
record TableNames(
        @Nullable String schema,
        String table,
        String id,
        String shardKey,
        String status,
        String retries,
        String updatedAt,
        String lastError,
        @Nullable String shardColumn,
        int lastErrorLength) {

    String qualified(SqlDialect dialect) {
        return (schema == null ? "" : dialect.quote(schema) + ".") + dialect.quote(table);
    }
}
