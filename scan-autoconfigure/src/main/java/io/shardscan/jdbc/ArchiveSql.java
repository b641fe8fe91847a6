package io.shardscan.jdbc;

import io.shardscan.core.task.Archive;
import io.shardscan.core.task.TaskDefinition;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The statements of one archive batch of a task, built once from resolved, quoted names. The
 * select reads one shard's finished rows older than the cutoff through the index over finished
 * rows and locks them; the insert copies exactly those rows (by id) to the archive table, the
 * delete removes them. Only rows of the task's match: tasks that share a table archive their own
 * rows, each under its own fence. Status values and the match are literals, as in {@link TaskSql},
 * so that PostgreSQL can match the partial index's predicate. So is the cutoff, the database's
 * {@link SqlDialect#rowClock clock} less {@code after}, the clock the engine stamps the updated-at
 * column with.
 *
 * @param select parameters: the shard, the limit; returns the ids
 * @param insert {@code null} when the task deletes; else completed by the dialect's id list
 * @param delete completed by the dialect's id list
 */
record ArchiveSql(String select, @Nullable String insert, String delete) {

    /**
     * The statements for the task's archive.
     *
     * @param archiveTable the archive table, quoted, or {@code null} when the task deletes
     * @param archiveColumns the archive's columns to fill, quoted, in the order of {@code sourceColumns}
     * @param sourceColumns the scanned table's columns they are filled from, quoted
     */
    static ArchiveSql of(
            TaskDefinition task,
            TableNames names,
            SqlDialect dialect,
            @Nullable String archiveTable,
            List<String> archiveColumns,
            List<String> sourceColumns) {
        String table = names.qualified(dialect);
        String finished = finished(task, names, dialect);
        String byId = " WHERE " + finished + " AND " + dialect.quote(names.id());
        String insert = archiveTable == null
                ? null
                : "INSERT INTO " + archiveTable + " (" + String.join(", ", archiveColumns) + ") SELECT "
                        + String.join(", ", sourceColumns) + " FROM " + table + byId;
        return new ArchiveSql(select(task, names, dialect), insert, "DELETE FROM " + table + byId);
    }

    private static String select(TaskDefinition task, TableNames names, SqlDialect dialect) {
        Archive archive = task.archive();
        return dialect.limit(
                        "SELECT " + dialect.quote(names.id()) + " FROM " + names.qualified(dialect) + " WHERE "
                                + finished(task, names, dialect) + " AND " + dialect.shardCondition(task, names)
                                + " AND " + dialect.quote(names.updatedAt()) + " <= "
                                + dialect.rowClockMinus(
                                        names.updatedAtZoned(), archive.after().toMillis()),
                        "?")
                + " FOR UPDATE";
    }

    private static String finished(TaskDefinition task, TableNames names, SqlDialect dialect) {
        String status = dialect.quote(names.status());
        return (task.archive().includeDead()
                        ? status + " IN (" + task.statuses().done() + ", "
                                + task.statuses().dead() + ")"
                        : status + " = " + task.statuses().done())
                + names.match().and(dialect);
    }
}
