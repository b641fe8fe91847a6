package io.shardscan.jdbc;

import io.shardscan.core.task.Archive;
import io.shardscan.core.task.TaskDefinition;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Checks where a task archives to: that the archive table exists (naming the statements that
 * create it when not) with every column of the scanned table (naming those that add the missing
 * ones), with a key on the id (warning when not), and that the index an archive batch reads through
 * exists; and builds the batch's statements. Stateless.
 */
final class ArchiveTable {

    private ArchiveTable() {}

    /**
     * What was found.
     *
     * @param problems why startup must fail, each with the fix; empty when none
     * @param indexStatements the statements that create the missing index over finished rows; empty when present
     * @param sql the batch's statements; {@code null} when the task does not archive or cannot
     * @param warnings what only risks something, each with the fix; empty when none
     */
    record Inspection(
            List<String> problems,
            List<String> indexStatements,
            @Nullable ArchiveSql sql,
            List<String> warnings) {

        static final Inspection NONE = new Inspection(List.of(), List.of(), null, List.of());

        Inspection(List<String> problems, List<String> indexStatements, @Nullable ArchiveSql sql) {
            this(problems, indexStatements, sql, List.of());
        }
    }

    /**
     * Inspects the archive of a task whose table was found with all its configured columns.
     *
     * @param columns the scanned table's columns by lower-case name, in table order
     */
    static Inspection inspect(
            DatabaseMetaData metaData,
            SqlDialect dialect,
            TaskDefinition task,
            TableNames names,
            Map<String, TableInspector.ColumnInfo> columns)
            throws SQLException {
        Archive archive = task.archive();
        if (archive == null) {
            return Inspection.NONE;
        }
        List<String> index = dialect.hasArchiveIndex(metaData, task, names)
                ? List.of()
                : dialect.archiveIndexStatements(task, names);
        if (archive.table() == null) {
            return new Inspection(List.of(), index, ArchiveSql.of(task, names, dialect, null, List.of(), List.of()));
        }
        String property = "scan.tasks." + task.name() + ".archive.to";
        String create = String.join(";\n  ", dialect.archiveTableStatements(task, archive.table()));
        String configured = archive.table();
        Map<String, TableInspector.ColumnInfo> target = TableInspector.columns(
                metaData,
                dialect,
                configured.contains(".") ? configured.substring(0, configured.indexOf('.')) : null,
                configured.substring(configured.indexOf('.') + 1));
        if (target.isEmpty()) {
            return new Inspection(
                    List.of(property + " names table " + configured + ", which does not exist: create it with the"
                            + " columns of " + task.table() + ":\n  " + create + ";\nor set " + property + "="
                            + Archive.DELETE + " to delete finished rows instead of moving them"),
                    index,
                    null);
        }
        List<TableInspector.ColumnInfo> missing = new ArrayList<>();
        List<String> archiveColumns = new ArrayList<>();
        List<String> sourceColumns = new ArrayList<>();
        for (Map.Entry<String, TableInspector.ColumnInfo> column : columns.entrySet()) {
            TableInspector.ColumnInfo into = target.get(column.getKey());
            if (into == null) {
                missing.add(column.getValue());
            } else if (!into.generated()) {
                // a generated column of the archive computes its own value
                archiveColumns.add(dialect.quote(into.name()));
                sourceColumns.add(dialect.quote(column.getValue().name()));
            }
        }
        if (!missing.isEmpty()) {
            // the table exists, so CREATE TABLE would fail: add what it lacks, typed as the scanned table's
            return new Inspection(
                    List.of(property + " names table " + configured + ", which lacks column"
                            + (missing.size() == 1 ? " " : "s ")
                            + String.join(
                                    ", ",
                                    missing.stream()
                                            .map(TableInspector.ColumnInfo::name)
                                            .toList())
                            + " of " + task.table() + " (its columns: "
                            + String.join(
                                    ", ",
                                    target.values().stream()
                                            .map(TableInspector.ColumnInfo::name)
                                            .toList())
                            + "): add " + (missing.size() == 1 ? "it" : "them") + ":\n  "
                            + String.join(
                                    ";\n  ",
                                    missing.stream()
                                            .map(c -> dialect.addColumnStatement(configured, c))
                                            .toList())),
                    index,
                    null);
        }
        TableInspector.ColumnInfo any = target.values().iterator().next();
        String qualified = (configured.contains(".") && any.schema() != null ? dialect.quote(any.schema()) + "." : "")
                + dialect.quote(any.table());
        if (configured.contains(".") && any.schema() == null) {
            // a schema that is a catalog (MySQL's database): the metadata reports no schema for the columns
            qualified = dialect.quote(configured.substring(0, configured.indexOf('.'))) + "." + qualified;
        }
        List<String> warnings = keyedOnId(
                        metaData, dialect, any, configured, task.columns().id())
                ? List.of()
                : List.of("archive table " + configured + " (" + property + ") has no primary key or unique key on "
                        + task.columns().id() + ", so nothing refuses a row archived twice (that no row is doubled"
                        + " relies on it). Add one:\n  "
                        + String.join(
                                ";\n  ",
                                dialect.addPrimaryKeyStatements(
                                        configured, task.columns().id())));
        return new Inspection(
                List.of(),
                index,
                ArchiveSql.of(task, names, dialect, qualified, archiveColumns, sourceColumns),
                warnings);
    }

    /** Whether the archive table has a primary key or unique index on the id column alone. */
    private static boolean keyedOnId(
            DatabaseMetaData metaData,
            SqlDialect dialect,
            TableInspector.ColumnInfo any,
            String configured,
            String idColumn)
            throws SQLException {
        String qualifier = any.schema() != null
                ? any.schema()
                : configured.contains(".") ? configured.substring(0, configured.indexOf('.')) : null;
        MetadataScope scope = MetadataScope.of(dialect, metaData.getConnection(), qualifier, true);
        Map<String, List<String>> uniqueIndexes = new HashMap<>();
        try (ResultSet rs = metaData.getIndexInfo(scope.catalog(), scope.schema(), any.table(), true, false)) {
            while (rs.next()) {
                String index = rs.getString("INDEX_NAME");
                String column = rs.getString("COLUMN_NAME");
                if (index != null && column != null && !rs.getBoolean("NON_UNIQUE")) {
                    uniqueIndexes.computeIfAbsent(index, i -> new ArrayList<>()).add(column);
                }
            }
        }
        return uniqueIndexes.values().stream()
                .anyMatch(columns -> columns.size() == 1 && columns.get(0).equalsIgnoreCase(idColumn));
    }
}
