package io.shardscan.jdbc;

import org.jspecify.annotations.Nullable;

/**
 * A task's table and columns with the spelling the database uses, resolved from its metadata so
 * that quoting them never changes which object they name, and its match as SQL. {@code dueAt} is
 * {@code null} for a task without a due-at column, {@code endpoint} for one without an endpoint
 * column ({@code endpointNumeric}: whether its values are bound as numbers). {@code updatedAtZoned}:
 * whether the updated-at column holds instants ({@code timestamptz}, {@code TIMESTAMP WITH TIME ZONE}),
 * which the engine stamps with the database's clock as they are, rather than zone-less values, which it
 * stamps with the database's clock in UTC. {@code idUuid}: whether the id column's type is the
 * database's UUID type, whose ids the store binds as {@code UUID}s. What a {@link SqlDialect}'s hooks
 * build their SQL from; the store resolves it once per task, at inspection. Immutable.
 */
public record TableNames(
        @Nullable String schema,
        String table,
        String id,
        String shardKey,
        String status,
        String retries,
        String updatedAt,
        String lastError,
        @Nullable String shardColumn,
        int lastErrorLength,
        MatchSql match,
        @Nullable String dueAt,
        @Nullable String endpoint,
        boolean endpointNumeric,
        boolean updatedAtZoned,
        boolean idUuid) {

    /** Names of a task without an endpoint column. */
    TableNames(
            @Nullable String schema,
            String table,
            String id,
            String shardKey,
            String status,
            String retries,
            String updatedAt,
            String lastError,
            @Nullable String shardColumn,
            int lastErrorLength,
            MatchSql match,
            @Nullable String dueAt) {
        this(
                schema,
                table,
                id,
                shardKey,
                status,
                retries,
                updatedAt,
                lastError,
                shardColumn,
                lastErrorLength,
                match,
                dueAt,
                null,
                false,
                false,
                false);
    }

    /** The table, quoted by {@code dialect}, qualified by its schema when the task's table names one. */
    public String qualified(SqlDialect dialect) {
        return (schema == null ? "" : dialect.quote(schema) + ".") + dialect.quote(table);
    }
}
