package io.shardscan.jdbc;

import io.shardscan.core.spi.SchemaReport;
import io.shardscan.core.spi.UnfetchableRows;
import io.shardscan.core.task.KeyType;
import io.shardscan.core.task.TaskDefinition;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/** Reads a task's table from the database metadata: its real name, its columns and its indexes. */
final class TableInspector {

    private final DataSource dataSource;
    private final SqlDialect dialect;

    TableInspector(DataSource dataSource, SqlDialect dialect) {
        this.dataSource = dataSource;
        this.dialect = dialect;
    }

    /** The resolved names and the report, or names {@code null} when the table or a column is missing. */
    record Inspection(
            @Nullable TableNames names,
            SchemaReport report,
            @Nullable ArchiveSql archive) {

        Inspection(@Nullable TableNames names, SchemaReport report) {
            this(names, report, null);
        }
    }

    Inspection inspect(TaskDefinition task) {
        try (Connection connection = dataSource.getConnection()) {
            DatabaseMetaData metaData = connection.getMetaData();
            String schema = task.table().contains(".")
                    ? task.table().substring(0, task.table().indexOf('.'))
                    : null;
            String table = task.table().substring(task.table().indexOf('.') + 1);
            Map<String, ColumnInfo> columns = columns(metaData, dialect, schema, table);
            if (columns.isEmpty()) {
                return new Inspection(null, new SchemaReport(false, List.of(), false, List.of(), null));
            }
            List<String> missing = new ArrayList<>();
            String[] required = {
                task.columns().id(),
                task.columns().shardKey(),
                task.columns().status(),
                task.columns().retry(),
                task.columns().updatedAt(),
                task.columns().lastError()
            };
            for (String column : required) {
                if (!columns.containsKey(column.toLowerCase(Locale.ROOT)) && !missing.contains(column)) {
                    missing.add(column);
                }
            }
            String dueAt = task.columns().dueAt();
            if (dueAt != null && !columns.containsKey(dueAt.toLowerCase(Locale.ROOT)) && !missing.contains(dueAt)) {
                missing.add(dueAt);
            }
            String endpoint = task.endpointColumn();
            if (endpoint != null
                    && !columns.containsKey(endpoint.toLowerCase(Locale.ROOT))
                    && !missing.contains(endpoint)) {
                missing.add(endpoint);
            }
            if (!missing.isEmpty()) {
                return new Inspection(
                        null, new SchemaReport(true, missing, false, List.of(), List.of(), columnNames(columns), -1));
            }
            ColumnInfo anyColumn = columns.values().iterator().next();
            ColumnInfo shardColumn = columns.get(task.columns().shard().toLowerCase(Locale.ROOT));
            ColumnInfo lastError = columns.get(task.columns().lastError().toLowerCase(Locale.ROOT));
            MatchColumns.Resolved match = MatchColumns.resolve(task, columns);
            TableNames names = new TableNames(
                    anyColumn.schema(),
                    anyColumn.table(),
                    name(columns, task.columns().id()),
                    name(columns, task.columns().shardKey()),
                    name(columns, task.columns().status()),
                    name(columns, task.columns().retry()),
                    name(columns, task.columns().updatedAt()),
                    name(columns, task.columns().lastError()),
                    dialect.generatesShardColumn() && shardColumn != null ? shardColumn.name() : null,
                    lastError.size(),
                    match.sql(),
                    dueAt == null ? null : name(columns, dueAt),
                    endpoint == null ? null : name(columns, endpoint),
                    endpoint != null
                            && ColumnTypes.WHOLE_NUMBERS.contains(columns.get(endpoint.toLowerCase(Locale.ROOT))
                                    .jdbcType()),
                    !DueAtZoneCheck.zoneless(
                            columns.get(task.columns().updatedAt().toLowerCase(Locale.ROOT))),
                    ColumnTypes.uuid(columns.get(task.columns().id().toLowerCase(Locale.ROOT))));
            boolean indexed = dialect.hasScanIndex(metaData, task, names);
            List<String> problems = new ArrayList<>(ColumnTypes.problems(task, columns));
            problems.addAll(match.problems());
            if (problems.isEmpty() && task.columns().idType() == KeyType.TEXT) {
                problems.addAll(dialect.textIdProblems(connection, task, names));
            }
            ColumnInfo shardKey = columns.get(task.columns().shardKey().toLowerCase(Locale.ROOT));
            long nullShardKeys = problems.isEmpty() && shardKey.nullable()
                    ? countNull(connection, task, names, names.shardKey())
                    : 0;
            ColumnInfo retries = columns.get(task.columns().retry().toLowerCase(Locale.ROOT));
            UnfetchableRows unfetchable =
                    problems.isEmpty() ? countUnfetchable(connection, task, names) : UnfetchableRows.NONE;
            List<String> retryColumnStatements = problems.isEmpty() && retries.nullable()
                    ? dialect.retryColumnNotNull(task, retries.typeName())
                    : List.of();
            List<String> warnings = new ArrayList<>();
            long nullDueTimes = 0;
            if (dueAt != null && problems.isEmpty()) {
                ColumnInfo due = columns.get(dueAt.toLowerCase(Locale.ROOT));
                nullDueTimes = due.nullable() ? countNull(connection, task, names, names.dueAt()) : 0;
                String serverZone = DueAtZoneCheck.zoneless(due) ? dialect.serverZone(connection) : null;
                String warning = serverZone == null
                        ? null
                        : DueAtZoneCheck.warning(
                                due, serverZone, dialect.sessionInJvmZone(), ZoneId.systemDefault(), Instant.now());
                if (warning != null) {
                    warnings.add(warning);
                }
            }
            ShardColumnCheck.Found shardColumnFound = dialect.checkShards(connection, task, names);
            problems.addAll(shardColumnFound.problems());
            warnings.addAll(shardColumnFound.warnings());
            ArchiveTable.Inspection archive = ArchiveTable.inspect(metaData, dialect, task, names, columns);
            warnings.addAll(archive.warnings());
            problems = new ArrayList<>(problems);
            problems.addAll(archive.problems());
            return new Inspection(
                    names,
                    new SchemaReport(
                            true,
                            List.of(),
                            indexed,
                            indexed ? List.of() : indexStatements(metaData, task, names),
                            problems,
                            columnNames(columns),
                            nullShardKeys,
                            archive.indexStatements(),
                            !match.problems().isEmpty(),
                            warnings,
                            nullDueTimes,
                            unfetchable,
                            retryColumnStatements,
                            ColumnValues.heldClasses(connection, names.qualified(dialect))),
                    archive.sql());
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "scan.tasks." + task.name() + ": cannot read the metadata of table " + task.table() + ": "
                            + e.getMessage(),
                    e);
        }
    }

    /** The statements that create the scan index, after those that drop a stale one of the same name. */
    private List<String> indexStatements(DatabaseMetaData metaData, TaskDefinition task, TableNames names)
            throws SQLException {
        List<String> statements = new ArrayList<>(dialect.staleIndexStatements(metaData, task, names));
        statements.addAll(SchemaDdl.scanIndexStatements(dialect, task, names));
        return statements;
    }

    /** A column as the metadata describes it; {@code jdbcType} is a {@link java.sql.Types} constant. */
    record ColumnInfo(
            @Nullable String schema,
            String table,
            String name,
            int size,
            int jdbcType,
            String typeName,
            int decimalDigits,
            boolean nullable,
            boolean generated) {}

    /** The task's pending rows whose {@code column} is NULL; called only when the column allows NULL. */
    private long countNull(Connection connection, TaskDefinition task, TableNames names, String column)
            throws SQLException {
        String sql = "SELECT COUNT(*) FROM " + names.qualified(dialect) + " WHERE " + dialect.quote(column)
                + " IS NULL AND " + dialect.quote(names.status()) + " = "
                + task.statuses().pending()
                + names.match().and(dialect);
        try (var statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(sql)) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    /**
     * The task's pending rows whose retry count is NULL or negative, and its failed ones whose
     * updated-at is NULL (see {@link UnfetchableRows}); one pass over the pending rows, at startup.
     */
    private UnfetchableRows countUnfetchable(Connection connection, TaskDefinition task, TableNames names)
            throws SQLException {
        String retries = dialect.quote(names.retries());
        String updatedAt = dialect.quote(names.updatedAt());
        String sql = "SELECT COALESCE(SUM(CASE WHEN " + retries + " IS NULL THEN 1 ELSE 0 END), 0),"
                + " COALESCE(SUM(CASE WHEN " + retries + " < 0 THEN 1 ELSE 0 END), 0),"
                + " COALESCE(SUM(CASE WHEN " + retries + " > 0 AND " + updatedAt + " IS NULL THEN 1 ELSE 0 END), 0)"
                + " FROM "
                + names.qualified(dialect) + " WHERE " + dialect.quote(names.status()) + " = "
                + task.statuses().pending()
                + names.match().and(dialect) + " AND (" + retries + " IS NULL OR " + retries + " < 0 OR ("
                + retries + " > 0 AND " + updatedAt + " IS NULL))";
        try (var statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(sql)) {
            return rs.next() ? new UnfetchableRows(rs.getLong(1), rs.getLong(2), rs.getLong(3)) : UnfetchableRows.NONE;
        }
    }

    private static List<String> columnNames(Map<String, ColumnInfo> columns) {
        return columns.values().stream().map(ColumnInfo::name).toList();
    }

    /** Columns by lower-case name; tries the name as written, then upper and lower case, as databases fold it. */
    static Map<String, ColumnInfo> columns(
            DatabaseMetaData metaData, SqlDialect dialect, @Nullable String schema, String table) throws SQLException {
        for (String[] spelling : spellings(schema, table)) {
            Map<String, ColumnInfo> columns = new LinkedHashMap<>();
            MetadataScope scope = MetadataScope.of(dialect, metaData.getConnection(), spelling[0], true);
            try (ResultSet rs = metaData.getColumns(scope.catalog(), scope.schema(), spelling[1], null)) {
                while (rs.next()) {
                    // where a schema is a catalog, a column reports none: the qualifier stays as configured
                    String owner = dialect.schemaIsCatalog() ? null : rs.getString("TABLE_SCHEM");
                    String name = rs.getString("COLUMN_NAME");
                    columns.put(
                            name.toLowerCase(Locale.ROOT),
                            new ColumnInfo(
                                    schema == null ? null : owner,
                                    rs.getString("TABLE_NAME"),
                                    name,
                                    rs.getInt("COLUMN_SIZE"),
                                    rs.getInt("DATA_TYPE"),
                                    rs.getString("TYPE_NAME"),
                                    rs.getInt("DECIMAL_DIGITS"),
                                    rs.getInt("NULLABLE") != DatabaseMetaData.columnNoNulls,
                                    "YES".equalsIgnoreCase(rs.getString("IS_GENERATEDCOLUMN"))));
                }
            }
            if (!columns.isEmpty()) {
                return columns;
            }
        }
        return Map.of();
    }

    private static List<String[]> spellings(@Nullable String schema, String table) {
        List<String[]> spellings = new ArrayList<>();
        spellings.add(new String[] {schema, table});
        spellings.add(new String[] {upper(schema), table.toUpperCase(Locale.ROOT)});
        spellings.add(new String[] {lower(schema), table.toLowerCase(Locale.ROOT)});
        return spellings;
    }

    private static @Nullable String upper(@Nullable String text) {
        return text == null ? null : text.toUpperCase(Locale.ROOT);
    }

    private static @Nullable String lower(@Nullable String text) {
        return text == null ? null : text.toLowerCase(Locale.ROOT);
    }

    private static String name(Map<String, ColumnInfo> columns, String column) {
        return columns.get(column.toLowerCase(Locale.ROOT)).name();
    }
}
