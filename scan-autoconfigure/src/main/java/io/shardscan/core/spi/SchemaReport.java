package io.shardscan.core.spi;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What a store found about a task's table. Immutable.
 *
 * @param tableExists whether the table exists
 * @param missingColumns configured columns the table lacks (the properties' values), empty when all exist
 * @param indexPresent whether the index that keeps the fetch a range scan exists
 * @param indexStatements the statements that create that index (and any column it needs) when missing
 * @param problems further reasons the table cannot be used, such as a column of a type the store
 *     cannot read; each names the column, its type and what is supported; empty when none
 * @param columns the table's column names as the database spells them; empty when the table is missing
 * @param nullShardKeys the pending rows whose shard key is NULL, which no shard fetches; {@code 0}
 *     when the column is NOT NULL, {@code -1} when not counted
 * @param archiveIndexStatements the statements that create the index the archiving reads finished
 *     rows through, when the task archives and it is missing; empty otherwise
 * @param matchFailed whether the task's {@code match} could not be resolved against the table (a
 *     column it lacks, a value its column's type cannot hold): then the engine leaves the task out of
 *     the overlap check, whose error would only follow from that one
 * @param warnings what only risks something but need not stop startup, each with the fix (such as an
 *     archive table without a key on the id, or a due-at column without time zone in a database
 *     whose zone is not the JVM's); empty when none
 * @param nullDueTimes the pending rows whose due-at value is NULL, which are never due; {@code 0}
 *     without a due-at column or when it is NOT NULL, {@code -1} when not counted
 * @param unfetchable the pending rows no tier fetches for what the retry and updated-at columns
 *     hold; {@link UnfetchableRows#NONE} when not counted
 * @param retryColumnStatements the statements that make the retry column NOT NULL DEFAULT 0 (after
 *     giving its NULL rows 0) when it allows NULL, as a user would run them; empty when it does not
 * @param columnClasses the class of the value a fetched row holds for each column (what a handler's
 *     row type binds from), by lower-case column name; empty when the store does not say
 */
public record SchemaReport(
        boolean tableExists,
        List<String> missingColumns,
        boolean indexPresent,
        List<String> indexStatements,
        List<String> problems,
        List<String> columns,
        long nullShardKeys,
        List<String> archiveIndexStatements,
        boolean matchFailed,
        List<String> warnings,
        long nullDueTimes,
        UnfetchableRows unfetchable,
        List<String> retryColumnStatements,
        Map<String, String> columnClasses) {

    public SchemaReport {
        missingColumns = List.copyOf(missingColumns);
        indexStatements = List.copyOf(indexStatements);
        problems = List.copyOf(problems);
        columns = List.copyOf(columns);
        archiveIndexStatements = List.copyOf(archiveIndexStatements);
        warnings = List.copyOf(warnings);
        retryColumnStatements = List.copyOf(retryColumnStatements);
        columnClasses = Map.copyOf(columnClasses);
    }

    /** This report with the classes of its columns' values. */
    public SchemaReport withColumnClasses(Map<String, String> classes) {
        return new SchemaReport(
                tableExists,
                missingColumns,
                indexPresent,
                indexStatements,
                problems,
                columns,
                nullShardKeys,
                archiveIndexStatements,
                matchFailed,
                warnings,
                nullDueTimes,
                unfetchable,
                retryColumnStatements,
                classes);
    }

    /** A report without rows that no tier fetches, or of a store that does not count them. */
    public SchemaReport(
            boolean tableExists,
            List<String> missingColumns,
            boolean indexPresent,
            List<String> indexStatements,
            List<String> problems,
            List<String> columns,
            long nullShardKeys,
            List<String> archiveIndexStatements,
            boolean matchFailed,
            List<String> warnings,
            long nullDueTimes) {
        this(
                tableExists,
                missingColumns,
                indexPresent,
                indexStatements,
                problems,
                columns,
                nullShardKeys,
                archiveIndexStatements,
                matchFailed,
                warnings,
                nullDueTimes,
                UnfetchableRows.NONE,
                List.of(),
                Map.of());
    }

    /** A report of a task without a NULL due time to count. */
    public SchemaReport(
            boolean tableExists,
            List<String> missingColumns,
            boolean indexPresent,
            List<String> indexStatements,
            List<String> problems,
            List<String> columns,
            long nullShardKeys,
            List<String> archiveIndexStatements,
            boolean matchFailed,
            List<String> warnings) {
        this(
                tableExists,
                missingColumns,
                indexPresent,
                indexStatements,
                problems,
                columns,
                nullShardKeys,
                archiveIndexStatements,
                matchFailed,
                warnings,
                0);
    }

    /** A report whose match, if any, was resolved. */
    public SchemaReport(
            boolean tableExists,
            List<String> missingColumns,
            boolean indexPresent,
            List<String> indexStatements,
            List<String> problems,
            List<String> columns,
            long nullShardKeys,
            List<String> archiveIndexStatements) {
        this(
                tableExists,
                missingColumns,
                indexPresent,
                indexStatements,
                problems,
                columns,
                nullShardKeys,
                archiveIndexStatements,
                false,
                List.of());
    }

    /** A report of a task that does not archive, or whose archive index is there. */
    public SchemaReport(
            boolean tableExists,
            List<String> missingColumns,
            boolean indexPresent,
            List<String> indexStatements,
            List<String> problems,
            List<String> columns,
            long nullShardKeys) {
        this(tableExists, missingColumns, indexPresent, indexStatements, problems, columns, nullShardKeys, List.of());
    }

    /** A report without column names or NULL shard key count, for stores that do not know them. */
    public SchemaReport(
            boolean tableExists,
            List<String> missingColumns,
            boolean indexPresent,
            List<String> indexStatements,
            @Nullable String problem) {
        this(
                tableExists,
                missingColumns,
                indexPresent,
                indexStatements,
                problem == null ? List.of() : List.of(problem),
                List.of(),
                -1);
    }
}
