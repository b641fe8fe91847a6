package io.shardscan.jdbc;

import io.shardscan.core.TaskDefinition;

/**
 * The statements of one task, built once from its resolved names. Status values, the shard count
 * and a tier's retry bounds are validated integers and written as literals, so that PostgreSQL can
 * match a partial index's predicate (a tier of failed rows reads only the index of failed rows);
 * every other value is a bind parameter.
 */
record TaskSql(
        Fetch fetch,
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
        String whereRow = " WHERE " + id + " = ? AND " + pending;
        return new TaskSql(
                new Fetch(
                        "SELECT * FROM " + table + " WHERE " + pending + " AND " + dialect.shardCondition(task, names),
                        id,
                        retries,
                        updatedAt),
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

    /** The fetch of one shard's due rows of one tier, from quoted names. */
    record Fetch(String prefix, String id, String retries, String updatedAt) {

        /**
         * The statement for a tier's retry bounds. Its parameters: the shard, then the due bound
         * when {@link #takesDueBound} (only fresh rows are always due), then the keyset position
         * and the limit.
         */
        String sql(int minRetries, int maxRetries) {
            String range = minRetries == maxRetries
                    ? retries + " = " + minRetries
                    : maxRetries == Integer.MAX_VALUE
                            ? retries + " >= " + minRetries
                            : retries + " BETWEEN " + minRetries + " AND " + maxRetries;
            String due = !takesDueBound(maxRetries)
                    ? ""
                    : minRetries > 0
                            ? " AND " + updatedAt + " <= ?"
                            : " AND (" + retries + " = 0 OR " + updatedAt + " <= ?)";
            return prefix + " AND " + range + due + " AND " + id + " > ? ORDER BY " + id + " LIMIT ?";
        }

        static boolean takesDueBound(int maxRetries) {
            return maxRetries > 0;
        }
    }
}
