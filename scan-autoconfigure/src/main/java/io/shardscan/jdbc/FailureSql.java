package io.shardscan.jdbc;

import io.shardscan.core.spi.Requeue;
import io.shardscan.core.task.TaskDefinition;
import java.util.Collections;

/**
 * The statements that list a task's failed or dead rows grouped by last error and put selected ones
 * back to pending: built from the task's resolved names, status values as literals, everything else
 * bound. Only the task's match is selected. Stateless.
 */
record FailureSql(
        String table,
        String state,
        String id,
        String lastError,
        String pattern,
        String updatedAt,
        String requeue,
        SqlDialect dialect) {

    /** The statements for the task's dead rows ({@code dead}) or its pending rows that failed before. */
    static FailureSql of(TaskDefinition task, TableNames names, SqlDialect dialect, boolean dead) {
        String status = dialect.quote(names.status());
        String retries = dialect.quote(names.retries());
        String updatedAt = dialect.quote(names.updatedAt());
        String state = dead
                ? status + " = " + task.statuses().dead() + names.match().and(dialect)
                : status + " = " + task.statuses().pending() + names.match().and(dialect) + " AND " + retries + " > 0";
        String table = names.qualified(dialect);
        return new FailureSql(
                table,
                state,
                dialect.quote(names.id()),
                dialect.quote(names.lastError()),
                dialect.failureGroupKey(dialect.quote(names.lastError())),
                updatedAt,
                "UPDATE " + table + " SET " + status + " = " + task.statuses().pending() + ", " + retries + " = 0, "
                        + updatedAt + " = " + dialect.rowClock(names.updatedAtZoned()) + " WHERE " + state,
                dialect);
    }

    /**
     * The groups after the first {@code offset}. Parameter: the limit. Columns: last error with digit
     * runs as {@code #}, rows, first and last update, one original last error.
     */
    String groups(long offset) {
        return dialect.limit(
                "SELECT " + pattern + ", COUNT(*), MIN(" + updatedAt + "), MAX(" + updatedAt + "), MIN(" + lastError
                        + ") FROM " + table + " WHERE " + state + " GROUP BY " + pattern
                        + " ORDER BY COUNT(*) DESC, MAX(" + updatedAt + ") DESC",
                "?",
                offset);
    }

    /** Parameters: the group's error (digit runs as {@code #}) unless {@code nullError}, then the limit. */
    String examples(boolean nullError) {
        return dialect.limit(
                "SELECT " + id + " FROM " + table + " WHERE " + state + " AND " + errorIs(nullError) + " ORDER BY "
                        + id,
                "?");
    }

    /** One row of the task by id, every column. Parameter: the id. */
    static String row(TaskDefinition task, TableNames names, SqlDialect dialect) {
        return "SELECT * FROM " + names.qualified(dialect) + " WHERE " + dialect.quote(names.id()) + " = ?"
                + names.match().and(dialect);
    }

    /** Parameters: the ids, the error's group ({@link io.shardscan.core.spi.FailureGroup#keyOf}), or nothing. */
    String requeue(Requeue which) {
        if (!which.ids().isEmpty()) {
            return requeue + " AND " + id + " IN ("
                    + String.join(", ", Collections.nCopies(which.ids().size(), "?")) + ")";
        }
        return which.byError() ? requeue + " AND " + errorIs(which.error() == null) : requeue;
    }

    private String errorIs(boolean nullError) {
        return nullError ? lastError + " IS NULL" : pattern + " = ?";
    }
}
