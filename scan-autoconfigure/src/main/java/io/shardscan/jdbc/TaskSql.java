package io.shardscan.jdbc;

import io.shardscan.core.TaskDefinition;

/**
 * The statements of one task, built once from its resolved names. Status values and the shard
 * count are validated integers and written as literals, so that PostgreSQL can match the partial
 * index's predicate; every other value is a bind parameter.
 */
record TaskSql(
        String fetch,
        String markDone,
        String markDoneFenced,
        String markFailed,
        String markDead,
        String countPending,
        String countDead,
        String requeueDead,
        TableNames names) {

    static TaskSql of(TaskDefinition task, TableNames names, SqlDialect dialect) {
        String table = names.qualified(dialect);
        String id = dialect.quote(names.id());
        String status = dialect.quote(names.status());
        String retries = dialect.quote(names.retries());
        String updatedAt = dialect.quote(names.updatedAt());
        String lastError = dialect.quote(names.lastError());
        String pending = status + " = " + task.pendingStatus();
        String fetch = "SELECT * FROM " + table + " WHERE " + pending + " AND " + dialect.shardCondition(task, names)
                + " AND " + retries + " BETWEEN ? AND ? AND (" + retries + " = 0 OR " + updatedAt + " <= ?)"
                + " AND " + id + " > ? ORDER BY " + id + " LIMIT ?";
        String whereRow = " WHERE " + id + " = ? AND " + pending;
        return new TaskSql(
                fetch,
                "UPDATE " + table + " SET " + status + " = " + task.doneStatus() + ", " + updatedAt + " = ? WHERE "
                        + pending + " AND " + id,
                "UPDATE " + table + " SET " + status + " = " + task.doneStatus() + ", " + updatedAt + " = ? WHERE "
                        + pending + " AND EXISTS (SELECT 1 FROM scan_fence WHERE task = ? AND shard = ? AND epoch = ?"
                        + dialect.shareLock() + ") AND " + id,
                "UPDATE " + table + " SET " + retries + " = ?, " + updatedAt + " = ?, " + lastError + " = ?" + whereRow,
                "UPDATE " + table + " SET " + status + " = " + task.deadStatus() + ", " + retries + " = ?, " + updatedAt
                        + " = ?, " + lastError + " = ?" + whereRow,
                "SELECT " + retries + ", COUNT(*), MIN(" + updatedAt + ") FROM " + table + " WHERE " + pending
                        + " GROUP BY " + retries,
                "SELECT COUNT(*) FROM " + table + " WHERE " + status + " = " + task.deadStatus(),
                "UPDATE " + table + " SET " + status + " = " + task.pendingStatus() + ", " + retries + " = 0, "
                        + updatedAt + " = ? WHERE " + status + " = " + task.deadStatus(),
                names);
    }
}
