package io.shardscan.jdbc;

import io.shardscan.core.spi.FetchRequest;
import io.shardscan.core.task.KeyType;
import io.shardscan.core.task.RowColumns;
import io.shardscan.core.task.TaskDefinition;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The statements of one task, built once from its resolved names. Status values, the shard count,
 * a tier's retry bounds and the match's values are validated and written as literals, so that
 * PostgreSQL can match a partial index's predicate (a tier of failed rows reads only the index of
 * failed rows, a task with a match only the index of its own rows); so is a due-at task's delay, a
 * validated number of milliseconds; every other value is a bind parameter. Every statement that
 * selects rows by their state selects only the task's match; the write-backs select by id. The
 * fetch selects the columns the task's {@code reads} picks from {@code tableColumns}. A due-at
 * task's due bound holds the JVM's offset from UTC, {@code jvmOffset}, as a literal too: the
 * statements are built again when it changes (a daylight saving switch). A row's last update is
 * stamped, and a failed row's rest measured, with the database's {@link SqlDialect#rowClock clock}
 * alone, never a node's: nodes whose clocks differ agree when a row is due.
 */
record TaskSql(
        Fetch fetch,
        String markDone,
        String markDoneFenced,
        String markFailed,
        String markDead,
        BacklogCountSql countBacklog,
        String requeueDead,
        String failedRows,
        String anyLeft,
        TableNames names,
        RowColumns reads,
        List<String> tableColumns,
        ZoneOffset jvmOffset) {

    /** The statements of a task whose fetch reads every column. */
    static TaskSql of(TaskDefinition task, TableNames names, SqlDialect dialect) {
        return of(task.withRowColumns(RowColumns.ALL), names, List.of(), dialect);
    }

    /**
     * The statements of a task, its fetch selecting the columns of {@code tableColumns} that the
     * task's {@link TaskDefinition#rowColumns()} picks ({@code *} when it picks every column).
     *
     * @param tableColumns the table's columns as the database spells them
     */
    static TaskSql of(TaskDefinition task, TableNames names, List<String> tableColumns, SqlDialect dialect) {
        String table = names.qualified(dialect);
        String select = task.rowColumns().all()
                ? "*"
                : task.rowColumns().select(task, tableColumns).stream()
                        .map(dialect::quote)
                        .collect(Collectors.joining(", "));
        String id = dialect.quote(names.id());
        String keysetId = dialect.keysetId(task, names);
        String status = dialect.quote(names.status());
        String retries = dialect.quote(names.retries());
        String updatedAt = dialect.quote(names.updatedAt());
        String lastError = dialect.quote(names.lastError());
        String pending = status + " = " + task.statuses().pending();
        String stamp = dialect.rowClock(names.updatedAtZoned());
        String whereRow = " WHERE " + id + " = ? AND " + pending;
        String match = names.match().and(dialect);
        String dead = status + " = " + task.statuses().dead() + match;
        String dueAt = names.dueAt() == null ? null : dialect.quote(names.dueAt());
        ZoneOffset jvmOffset = SqlDialect.jvmOffset();
        Due due = dueAt == null
                ? null
                : new Due(
                        dueAt,
                        dueAt + " <= " + dialect.dueBound(task.delay().toMillis(), jvmOffset),
                        dialect.after(dueAt, keysetId));
        return new TaskSql(
                new Fetch(
                        "SELECT " + select + " FROM " + table + " WHERE " + pending + match + " AND "
                                + dialect.shardCondition(task, names),
                        " AS scan_probe FROM " + table + " WHERE " + pending + match + " AND "
                                + dialect.shardCondition(task, names),
                        keysetId,
                        task.columns().idType() == KeyType.TEXT,
                        retries,
                        updatedAt,
                        due,
                        names.endpoint() == null ? null : dialect.quote(names.endpoint()),
                        dialect,
                        names.updatedAtZoned()),
                "UPDATE " + table + " SET " + status + " = " + task.statuses().done() + ", " + updatedAt + " = " + stamp
                        + " WHERE " + pending + " AND " + id,
                "UPDATE " + table + " SET " + status + " = " + task.statuses().done() + ", " + updatedAt + " = " + stamp
                        + " WHERE " + pending
                        + " AND EXISTS (SELECT 1 FROM scan_fence WHERE task = ? AND shard = ? AND epoch = ?"
                        + dialect.shareLock() + ") AND " + id,
                "UPDATE " + table + " SET " + retries + " = ?, " + updatedAt + " = " + stamp + ", " + lastError + " = ?"
                        + whereRow,
                "UPDATE " + table + " SET " + status + " = " + task.statuses().dead() + ", " + retries + " = ?, "
                        + updatedAt + " = " + stamp + ", " + lastError + " = ?" + whereRow,
                BacklogCountSql.of(task, names, dialect, due),
                "UPDATE " + table + " SET " + status + " = " + task.statuses().pending() + ", " + retries + " = 0, "
                        + updatedAt + " = " + stamp + " WHERE " + dead,
                "SELECT " + dialect.quote(names.shardKey()) + ", " + id + (due == null ? "" : ", " + due.column())
                        + " FROM " + table + " WHERE " + pending + match + " AND " + retries + " > 0 AND "
                        + dialect.shardCondition(task, names) + " ORDER BY " + keysetId,
                dialect.limit(
                        "SELECT 1 FROM " + table + " WHERE " + pending + match + " AND "
                                + dialect.shardExpression(task, names) + " IS NOT NULL"
                                + (due == null
                                        ? ""
                                        : " AND (" + due.isDue() + " OR (" + retries + " > 0 AND " + due.column()
                                                + " IS NOT NULL))"),
                        "1"),
                names,
                task.rowColumns(),
                List.copyOf(tableColumns),
                jvmOffset);
    }

    /**
     * Whether these statements read the database's clock in another zone than the JVM's now: a
     * due-at task's, built before the JVM's offset changed.
     */
    boolean stale() {
        return fetch.due() != null && !jvmOffset.equals(SqlDialect.jvmOffset());
    }

    /**
     * A due-at column, quoted: the condition that a row is due by the database's clock, and the
     * keyset condition after a (due time, id) position.
     */
    record Due(String column, String isDue, String after) {}

    /**
     * The fetch of one shard's due rows of one tier, from quoted names; {@code due} is {@code null}
     * without a due-at column. A failed row's rest is measured with {@code dialect}'s
     * {@link SqlDialect#rowClock clock} for an updated-at column that holds instants or not
     * ({@code updatedAtZoned}).
     */
    record Fetch(
            String prefix,
            String probeFrom,
            String id,
            boolean textIds,
            String retries,
            String updatedAt,
            @Nullable Due due,
            @Nullable String endpoint,
            SqlDialect dialect,
            boolean updatedAtZoned) {

        /**
         * The statement for a request. Its parameters: the shard, then the excluded endpoints
         * (rows whose endpoint is NULL are kept), then the keyset position and the limit; a failed
         * row's rest is a literal. The keyset
         * position is the id when {@link #keyset} says so; with a due-at column it is the parameters of
         * {@link SqlDialect#after} when the request has a due time, else none.
         */
        String sql(FetchRequest request) {
            return sql(this.prefix, request);
        }

        /**
         * Whether the statement for {@code request} has a keyset position to bind: always for a
         * whole-number id (the lowest long at a pass's start); for a text id only after the first
         * page, as no text is below every other.
         */
        boolean keyset(FetchRequest request) {
            return due != null ? request.afterDue() != null : !textIds || request.afterText() != null;
        }

        /**
         * Which of the requests have a row the fetch would return: one branch per request, the fetch
         * of its first row (with the fetch of {@code fetches.get(i)}, the statements of its table)
         * selecting only the request's position in {@code requests} (a literal), so each branch is one
         * probe of the fetch's index that stops at the first row; the branches' parameters are the
         * fetches', in request order. The requests may differ in shard, tier and table.
         */
        static String probe(List<TaskSql> fetches, List<FetchRequest> requests) {
            return java.util.stream.IntStream.range(0, requests.size())
                    .mapToObj(position -> "("
                            + fetches.get(position)
                                    .fetch()
                                    .sql(
                                            "SELECT " + position
                                                    + fetches.get(position)
                                                            .fetch()
                                                            .probeFrom(),
                                            requests.get(position))
                            + ")")
                    .collect(Collectors.joining(" UNION ALL "));
        }

        private String sql(String head, FetchRequest request) {
            String prefix = request.excludedEndpoints().isEmpty() || endpoint == null
                    ? head
                    : head + " AND (" + endpoint + " IS NULL OR " + endpoint + " NOT IN ("
                            + String.join(
                                    ", ",
                                    java.util.Collections.nCopies(
                                            request.excludedEndpoints().size(), "?"))
                            + "))";
            int min = request.minRetries();
            int max = request.maxRetries();
            String range = min == max
                    ? retries + " = " + min
                    : max == Integer.MAX_VALUE ? retries + " >= " + min : retries + " BETWEEN " + min + " AND " + max;
            String rested = request.failedRest() == null
                    ? null
                    : updatedAt + " <= "
                            + dialect.rowClockMinus(
                                    updatedAtZoned, request.failedRest().toMillis());
            String due =
                    rested == null ? "" : min > 0 ? " AND " + rested : " AND (" + retries + " = 0 OR " + rested + ")";
            if (this.due != null) {
                return dialect.limit(
                        prefix + " AND " + range + due + " AND " + this.due.isDue()
                                + (keyset(request) ? " AND " + this.due.after() : "") + " ORDER BY "
                                + this.due.column() + ", " + id,
                        "?");
            }
            return dialect.limit(
                    prefix + " AND " + range + due + (keyset(request) ? " AND " + id + " > ?" : "") + " ORDER BY " + id,
                    "?");
        }
    }
}
