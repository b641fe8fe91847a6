package io.shardscan.jdbc;

import io.shardscan.core.Archive;
import io.shardscan.core.TaskDefinition;
import java.time.ZoneOffset;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The statements of one archive batch of a task, built once from resolved, quoted names. The
 * select reads one shard's finished rows older than the cutoff through the index over finished
 * rows and locks them; the insert copies exactly those rows (by id) to the archive table, the
 * delete removes them. Only rows of the task's match: tasks that share a table archive their own
 * rows, each under its own fence. Status values and the match are literals, as in {@link TaskSql},
 * so that PostgreSQL can match the partial index's predicate. So is the cutoff, the database's
 * clock less {@code after} read in the JVM's zone, in which the engine writes the updated-at
 * column: the {@link SqlDialect#dueBound due bound}'s rule, which holds the JVM's offset from UTC,
 * {@code jvmOffset}; the select is built again when it changes (a daylight saving switch).
 *
 * @param select parameters: the shard, the limit; returns the ids
 * @param insert {@code null} when the task deletes; else completed by the dialect's id list
 * @param delete completed by the dialect's id list
 * @param names the scanned table's resolved names, which the select is built again from
 * @param jvmOffset the JVM's offset the cutoff was built with
 */
record ArchiveSql(String select, @Nullable String insert, String delete, TableNames names, ZoneOffset jvmOffset) {

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
        ZoneOffset jvmOffset = SqlDialect.jvmOffset();
        return new ArchiveSql(
                select(task, names, dialect, jvmOffset), insert, "DELETE FROM " + table + byId, names, jvmOffset);
    }

    /** Whether the cutoff reads the database's clock in another zone than the JVM's now. */
    boolean stale() {
        return !jvmOffset.equals(SqlDialect.jvmOffset());
    }

    /** These statements with the select built again in the JVM's zone now. */
    ArchiveSql inJvmZone(TaskDefinition task, SqlDialect dialect) {
        ZoneOffset now = SqlDialect.jvmOffset();
        return new ArchiveSql(select(task, names, dialect, now), insert, delete, names, now);
    }

    private static String select(TaskDefinition task, TableNames names, SqlDialect dialect, ZoneOffset jvmOffset) {
        Archive archive = task.archive();
        return "SELECT " + dialect.quote(names.id()) + " FROM " + names.qualified(dialect) + " WHERE "
                + finished(task, names, dialect) + " AND " + dialect.shardCondition(task, names) + " AND "
                + dialect.quote(names.updatedAt()) + " <= "
                + dialect.dueBound(archive.after().toMillis(), jvmOffset)
                + " LIMIT ? FOR UPDATE";
    }

    private static String finished(TaskDefinition task, TableNames names, SqlDialect dialect) {
        String status = dialect.quote(names.status());
        return (task.archive().includeDead()
                        ? status + " IN (" + task.doneStatus() + ", " + task.deadStatus() + ")"
                        : status + " = " + task.doneStatus())
                + names.match().and(dialect);
    }
}
