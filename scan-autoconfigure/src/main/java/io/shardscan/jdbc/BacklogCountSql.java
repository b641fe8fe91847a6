package io.shardscan.jdbc;

import io.shardscan.core.task.TaskDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;

/**
 * The backlog count of a task's table, as branches of a {@code UNION ALL} that one statement may join
 * with other tables' (they bind no parameters, so any number of tables' join): the branch of kind
 * {@code k} selects the table's position in the statement, {@code k}, then {@code branches.get(k)} (a
 * select list and what follows it). Kind 0 is a row per retry count of the pending rows; kind 1 the dead
 * rows, the pending rows without a shard and the database's clock; kind 2, with a shard column, the
 * pending rows outside the task's shards. Immutable.
 */
record BacklogCountSql(List<String> branches) {

    BacklogCountSql {
        branches = List.copyOf(branches);
    }

    /**
     * The count of the task's table: the pending rows without a shard through the pending-row index (which
     * keeps the rows whose shard is NULL too), those outside the task's shards through two short ranges of
     * that index (empty when the column is generated for the task's shards); each group's rows without an
     * updated-at last.
     */
    static BacklogCountSql of(TaskDefinition task, TableNames names, SqlDialect dialect, TaskSql.@Nullable Due due) {
        String table = names.qualified(dialect);
        String retries = dialect.quote(names.retries());
        String updatedAt = dialect.quote(names.updatedAt());
        String pending = dialect.quote(names.status()) + " = " + task.statuses().pending()
                + names.match().and(dialect);
        String dueCounts = due == null ? "" : ", 0, 0, NULL";
        List<String> branches = new ArrayList<>();
        branches.add(retries + ", COUNT(*), MIN(" + updatedAt + ")"
                + (due == null
                        ? ""
                        : ", SUM(CASE WHEN " + due.isDue() + " OR " + due.column() + " IS NULL THEN 0 ELSE 1 END),"
                                + " SUM(CASE WHEN " + due.column() + " IS NULL THEN 1 ELSE 0 END),"
                                + " MIN(CASE WHEN " + due.isDue() + " THEN " + due.column() + " END)")
                + ", SUM(CASE WHEN " + updatedAt + " IS NULL THEN 1 ELSE 0 END) FROM " + table + " WHERE " + pending
                + " GROUP BY " + retries);
        branches.add("(SELECT COUNT(*) FROM " + table + " WHERE " + dialect.quote(names.status()) + " = "
                + task.statuses().dead() + names.match().and(dialect) + "), (SELECT COUNT(*) FROM " + table
                + " WHERE " + pending + " AND " + dialect.shardExpression(task, names) + " IS NULL), "
                + dialect.rowClock(names.updatedAtZoned()) + dueCounts + ", 0");
        if (names.shardColumn() != null) {
            String shard = dialect.quote(names.shardColumn());
            branches.add("0, (SELECT COUNT(*) FROM " + table + " WHERE " + pending + " AND (" + shard + " < 0 OR "
                    + shard + " >= " + task.shards() + ")), NULL" + dueCounts + ", 0");
        }
        return new BacklogCountSql(branches);
    }

    /** The count with the table's position {@code table} in every row's first column. */
    String sql(int table) {
        return IntStream.range(0, branches.size())
                .mapToObj(kind -> "SELECT " + table + ", " + kind + ", " + branches.get(kind))
                .collect(Collectors.joining(" UNION ALL "));
    }
}
