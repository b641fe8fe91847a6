package io.shardscan.jdbc;

import io.shardscan.core.task.TaskDefinition;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Databases without partial indexes: the shard lives in a generated column, and an index on
 * (status, shard, retries, id) puts the pending fresh rows of one shard side by side in id order,
 * so finished rows, under another status prefix, are never read by the fetch, and a tier of
 * failed rows reads only the failed rows of its shard. A task that never retries needs no
 * retries column in the index. A task's match columns lead the index, so that its rows sit
 * apart from other tasks' rows of the table; tasks matching on the same columns share the index.
 * With a due-at column the due time comes before the id, so a fetch stops at the first row not
 * yet due.
 */
public abstract class GeneratedShardColumnDialect extends SqlDialect {

    @Override
    protected final boolean generatesShardColumn() {
        return true;
    }

    /** The type and expression of the generated shard column, after {@code ADD COLUMN name}. */
    protected abstract String generatedColumn(TaskDefinition task);

    /** Whether the generated shard column gives rows the task's shards: see {@link ShardColumnCheck}. */
    @Override
    ShardColumnCheck.Found checkShards(Connection connection, TaskDefinition task, TableNames names)
            throws SQLException {
        return ShardColumnCheck.check(connection, this, task, names);
    }

    /** The statement that gives the existing shard column the expression of {@link #generatedColumn}. */
    protected abstract String redefineShardColumn(TaskDefinition task);

    /**
     * The indexes of the table in its own schema (the connection's, when unqualified), not of a
     * table of that name in another schema or database.
     */
    private ResultSet indexInfo(DatabaseMetaData metaData, TableNames names) throws SQLException {
        MetadataScope scope = MetadataScope.of(this, metaData.getConnection(), names.schema(), false);
        return metaData.getIndexInfo(scope.catalog(), scope.schema(), names.table(), false, false);
    }

    @Override
    protected boolean hasScanIndex(DatabaseMetaData metaData, TaskDefinition task, TableNames names)
            throws SQLException {
        if (names.shardColumn() == null) {
            return false;
        }
        List<String> match = names.match().conditions().stream()
                .map(MatchSql.Condition::column)
                .toList();
        List<String> wanted = new ArrayList<>(List.of(names.status(), names.shardColumn(), names.retries()));
        wanted.addAll(SchemaDdl.orderColumns(names));
        List<String> withoutRetries = new ArrayList<>(List.of(names.status(), names.shardColumn()));
        withoutRetries.addAll(SchemaDdl.orderColumns(names));
        for (Map<Integer, String> columns : indexColumns(metaData, names).values()) {
            List<String> leading = new ArrayList<>(columns.values());
            if (!leadsWithInAnyOrder(leading, match)) {
                continue;
            }
            leading = leading.subList(match.size(), leading.size());
            if (leadsWith(leading, wanted) || (!task.retryRules().retries() && leadsWith(leading, withoutRetries))) {
                return true;
            }
        }
        return false;
    }

    /** Whether the first columns are the match's columns, in whichever order. */
    private static boolean leadsWithInAnyOrder(List<String> columns, List<String> match) {
        return columns.size() >= match.size()
                && columns.subList(0, match.size()).stream()
                        .map(c -> c.toLowerCase(Locale.ROOT))
                        .collect(Collectors.toSet())
                        .equals(match.stream()
                                .map(c -> c.toLowerCase(Locale.ROOT))
                                .collect(Collectors.toSet()));
    }

    /**
     * An index on (match columns, status, shard, updated_at): an archive batch reads one shard's
     * done (or done and dead) rows of its match older than the cutoff as one range per status,
     * never pending rows.
     */
    @Override
    protected boolean hasArchiveIndex(DatabaseMetaData metaData, TaskDefinition task, TableNames names)
            throws SQLException {
        if (names.shardColumn() == null) {
            return false;
        }
        List<String> match = names.match().conditions().stream()
                .map(MatchSql.Condition::column)
                .toList();
        List<String> wanted = List.of(names.status(), names.shardColumn(), names.updatedAt());
        for (Map<Integer, String> columns : indexColumns(metaData, names).values()) {
            List<String> leading = new ArrayList<>(columns.values());
            if (leadsWithInAnyOrder(leading, match)
                    && leadsWith(leading.subList(match.size(), leading.size()), wanted)) {
                return true;
            }
        }
        return false;
    }

    @Override
    protected List<String> archiveIndexStatements(TaskDefinition task, TableNames names) {
        StringBuilder match = new StringBuilder();
        names.match().configuredColumns().forEach(column -> match.append(column).append(", "));
        return List.of("CREATE INDEX "
                + SchemaDdl.finishedIndexName(
                        task, SchemaDdl.qualifier(names.match().configuredColumns())) + " ON "
                + task.table() + " (" + match + task.columns().status() + ", "
                + task.columns().shard() + ", "
                + task.columns().updatedAt() + ")");
    }

    /** Each index of the table, by name, with its columns by position. */
    private Map<String, Map<Integer, String>> indexColumns(DatabaseMetaData metaData, TableNames names)
            throws SQLException {
        Map<String, Map<Integer, String>> indexes = new TreeMap<>();
        try (ResultSet rs = indexInfo(metaData, names)) {
            while (rs.next()) {
                String index = rs.getString("INDEX_NAME");
                String column = rs.getString("COLUMN_NAME");
                if (index != null && column != null) {
                    indexes.computeIfAbsent(index, i -> new TreeMap<>())
                            .put((int) rs.getShort("ORDINAL_POSITION"), column);
                }
            }
        }
        return indexes;
    }

    private static boolean leadsWith(List<String> columns, List<String> wanted) {
        return columns.size() >= wanted.size()
                && columns.subList(0, wanted.size()).stream()
                        .map(String::toLowerCase)
                        .toList()
                        .equals(wanted.stream().map(String::toLowerCase).toList());
    }

    @Override
    protected List<String> scanIndexStatements(TaskDefinition task, TableNames names) {
        StringBuilder match = new StringBuilder();
        names.match().configuredColumns().forEach(column -> match.append(column).append(", "));
        // named after the match's columns: one index serves every task that matches on them
        return List.of("CREATE INDEX "
                + SchemaDdl.indexName(task, SchemaDdl.qualifier(names.match().configuredColumns())) + " ON "
                + task.table() + " (" + match + task.columns().status() + ", "
                + task.columns().shard() + ", "
                + task.columns().retry() + ", " + SchemaDdl.orderColumns(task) + ")");
    }

    @Override
    protected List<String> shardColumnStatements(TaskDefinition task) {
        return List.of(
                "ALTER TABLE " + task.table() + " ADD COLUMN " + task.columns().shard() + " " + generatedColumn(task));
    }

    /**
     * The keyset condition spelled out: MariaDB reads a row comparison as a filter, not as a range
     * (measured: 1 350 index entries read for a page of 100), but this form as two ranges.
     */
    @Override
    protected String after(String due, String id) {
        return "(" + due + " > ? OR (" + due + " = ? AND " + id + " > ?))";
    }

    @Override
    protected int bindAfter(PreparedStatement statement, int index, Timestamp due, Object id, TableNames names)
            throws SQLException {
        statement.setTimestamp(index, due);
        statement.setTimestamp(index + 1, due);
        bindId(statement, index + 2, id, names);
        return index + 3;
    }
}
