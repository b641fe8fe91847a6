package io.shardscan.jdbc;

import io.shardscan.core.task.TaskDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The DDL a task's table needs for its fetch to stay a range scan, and the names it gives: the one
 * spelling of a row's shard ({@link #shardOf}), of the indexes' names and of their statements, which
 * the startup check prints, and which applications, benchmarks and tests run to create their tables'
 * indexes. The statements' shape is the dialect's ({@link SqlDialect#scanIndexStatements}): a partial
 * expression index on PostgreSQL, a generated shard column and an index over it elsewhere. Stateless.
 */
public final class SchemaDdl {

    private SchemaDdl() {}

    /**
     * A row's shard computed from its whole-number shard key {@code key} (a column or an expression),
     * as {@link TaskDefinition#shardOf} computes it: {@code MOD(MOD(key, N) + N, N)}, never negative,
     * also for a negative key, whose plain {@code MOD} (-5 for -5) names a shard no node fetches.
     * Every index, generated column and fetch spells it with this, so that they agree.
     */
    public static String shardOf(String key, int shards) {
        return "MOD(MOD(" + key + ", " + shards + ") + " + shards + ", " + shards + ")";
    }

    /**
     * The statements that give {@code task}'s table what keeps its fetch a range scan, as the startup
     * check prints them when they are missing: the generated shard column where {@code dialect} keeps
     * the shard in one ({@link #shardColumnStatements}), then the indexes ({@link #indexStatements}).
     *
     * @throws IllegalArgumentException for a task with a match: its values are written as literals of
     *     their columns' types, which only the inspection of the table knows; take that task's
     *     statements from {@link io.shardscan.core.spi.TaskStore#inspect}
     */
    public static List<String> scanIndexStatements(SqlDialect dialect, TaskDefinition task) {
        return scanIndexStatements(dialect, task, configuredNames(task));
    }

    /** The same for the resolved names of an inspected table, whose match they hold. */
    static List<String> scanIndexStatements(SqlDialect dialect, TaskDefinition task, TableNames names) {
        List<String> statements = new ArrayList<>(dialect.shardColumnStatements(task));
        statements.addAll(dialect.scanIndexStatements(task, names));
        return List.copyOf(statements);
    }

    /**
     * The statements that add the generated shard column where {@code dialect} keeps a row's shard in
     * one ({@link SqlDialect#generatesShardColumn}); empty where the index computes it.
     */
    public static List<String> shardColumnStatements(SqlDialect dialect, TaskDefinition task) {
        return dialect.shardColumnStatements(task);
    }

    /**
     * The statements that create the indexes of {@code task}'s fetch alone, the shard column being
     * there already: one over pending rows, and on PostgreSQL one over failed pending rows when the
     * task retries.
     *
     * @throws IllegalArgumentException for a task with a match, as {@link #scanIndexStatements}
     */
    public static List<String> indexStatements(SqlDialect dialect, TaskDefinition task) {
        return dialect.scanIndexStatements(task, configuredNames(task));
    }

    /**
     * The statements that create the index an archive batch reads one shard's finished rows through.
     *
     * @throws IllegalArgumentException for a task with a match, as {@link #scanIndexStatements}
     */
    public static List<String> archiveIndexStatements(SqlDialect dialect, TaskDefinition task) {
        return dialect.archiveIndexStatements(task, configuredNames(task));
    }

    /** The scan index's name for a table, e.g. {@code tb_order_scan_idx}, or {@code tb_order_due_idx} with a due-at column. */
    public static String indexName(TaskDefinition task) {
        return indexName(task, "");
    }

    /**
     * The index's name with {@code qualifier} after the table, which tells apart the indexes of
     * tasks that share the table through their match, e.g. {@code tb_order_vip_scan_idx}.
     */
    public static String indexName(TaskDefinition task, String qualifier) {
        return bareTable(task) + qualifier + (task.delayed() ? "_due_idx" : "_scan_idx");
    }

    /**
     * The name of the index over failed pending rows, e.g. {@code tb_order_retry_idx}
     * ({@code tb_order_due_retry_idx} with a due-at column).
     */
    public static String retryIndexName(TaskDefinition task) {
        return retryIndexName(task, "");
    }

    /** The name of the index over failed pending rows with a qualifier, as {@link #indexName(TaskDefinition, String)}. */
    public static String retryIndexName(TaskDefinition task, String qualifier) {
        return bareTable(task) + qualifier + (task.delayed() ? "_due_retry_idx" : "_retry_idx");
    }

    /**
     * The name of the index over finished rows with a qualifier, as {@link #indexName(TaskDefinition,
     * String)}, e.g. {@code tb_order_finished_idx}.
     */
    public static String finishedIndexName(TaskDefinition task, String qualifier) {
        return bareTable(task) + qualifier + "_finished_idx";
    }

    /** {@code _} and the words of {@code words} joined by {@code _}, as a name may hold them; empty for none. */
    public static String qualifier(List<String> words) {
        return words.stream().map(w -> "_" + w.replaceAll("[^A-Za-z0-9_]", "_")).collect(Collectors.joining());
    }

    /**
     * The columns the index orders a shard's pending rows by, as the task names them: the id, or
     * with a due-at column the due time, then the id, so that a fetch reads only due rows.
     */
    public static String orderColumns(TaskDefinition task) {
        return task.delayed()
                ? task.columns().dueAt() + ", " + task.columns().id()
                : task.columns().id();
    }

    /** The same as the database spells the columns. */
    static List<String> orderColumns(TableNames names) {
        return names.dueAt() == null ? List.of(names.id()) : List.of(names.dueAt(), names.id());
    }

    private static String bareTable(TaskDefinition task) {
        return task.table().substring(task.table().indexOf('.') + 1);
    }

    /** The task's names as configured, for a table not inspected: no match, a text id in a text column. */
    private static TableNames configuredNames(TaskDefinition task) {
        if (!task.match().isEmpty()) {
            throw new IllegalArgumentException("task " + task.name() + " has a match, whose values the statements"
                    + " write as literals of their columns' types: take its statements from the store's inspection");
        }
        return new TableNames(
                null,
                task.table(),
                task.columns().id(),
                task.columns().shardKey(),
                task.columns().status(),
                task.columns().retry(),
                task.columns().updatedAt(),
                task.columns().lastError(),
                task.columns().shard(),
                0,
                new MatchSql(List.of()),
                task.columns().dueAt());
    }
}
