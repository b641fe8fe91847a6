package io.shardscan.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * The catalog and schema arguments of a {@link java.sql.DatabaseMetaData} lookup of a table, as its
 * dialect names a qualifier ({@link SqlDialect#schemaIsCatalog}): the one place that tells them
 * apart, for the lookups of columns and indexes alike.
 *
 * @param catalog the catalog argument; {@code null} for any
 * @param schema the schema pattern argument; {@code null} for any
 */
record MetadataScope(@Nullable String catalog, @Nullable String schema) {

    /**
     * The arguments for a table qualified by {@code qualifier}, or unqualified ({@code null}): where a
     * schema is a catalog, the qualifier or the connection's catalog, with any schema; else the
     * qualifier as the schema, or, unqualified, the connection's schema, or any schema with
     * {@code anySchema} (then in any catalog, as the lookup of a task's table has always been).
     */
    static MetadataScope of(SqlDialect dialect, Connection connection, @Nullable String qualifier, boolean anySchema)
            throws SQLException {
        if (dialect.schemaIsCatalog()) {
            return new MetadataScope(qualifier != null ? qualifier : connection.getCatalog(), null);
        }
        if (anySchema) {
            return new MetadataScope(null, qualifier);
        }
        return new MetadataScope(connection.getCatalog(), qualifier != null ? qualifier : connection.getSchema());
    }
}
