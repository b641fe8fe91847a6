package io.shardscan.jdbc;

import io.shardscan.core.TaskDefinition;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;

/**
 * PostgreSQL: a row's shard is {@code mod(key, N)}, kept a range scan by a partial expression index
 * over pending rows only, so finished rows never enter the index the fetch reads.
 */
final class PostgresDialect extends SqlDialect {

    @Override
    public String name() {
        return "postgresql";
    }

    @Override
    String nowPlusMillis() {
        return "(LOCALTIMESTAMP + ? * INTERVAL '1 millisecond')";
    }

    @Override
    String now() {
        return "LOCALTIMESTAMP";
    }

    @Override
    boolean fencesInOneStatement() {
        return true;
    }

    @Override
    String shardCondition(TaskDefinition task, TableNames names) {
        // The expression must match the partial index's expression exactly for the planner to use it.
        return "mod(" + quote(names.shardKey()) + ", " + task.shards() + ") = ?";
    }

    @Override
    boolean hasScanIndex(DatabaseMetaData metaData, TaskDefinition task, TableNames names) throws SQLException {
        String sql = "SELECT indexdef FROM pg_indexes WHERE tablename = ?"
                + (names.schema() == null ? " AND schemaname = ANY (current_schemas(false))" : " AND schemaname = ?");
        try (PreparedStatement statement = metaData.getConnection().prepareStatement(sql)) {
            statement.setString(1, names.table());
            if (names.schema() != null) {
                statement.setString(2, names.schema());
            }
            String wanted = normalize("(mod(" + names.shardKey() + "," + task.shards() + ")," + names.id() + ")");
            String predicate = normalize("where " + names.status() + "=" + task.pendingStatus());
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    String definition = normalize(rs.getString(1));
                    if (definition.contains(wanted) && definition.endsWith(predicate)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Strips what PostgreSQL adds when it prints an index back: casts, parentheses, quotes, spaces. */
    private static String normalize(String sql) {
        return sql.toLowerCase(Locale.ROOT)
                .replaceAll("::[a-z ]+", "")
                .replaceAll("[()\"\\s]", "")
                .replace("usingbtree", "");
    }

    @Override
    List<String> scanIndexStatements(TaskDefinition task) {
        return List.of("CREATE INDEX " + indexName(task) + " ON " + task.table() + " (mod(" + task.shardKeyColumn()
                + ", " + task.shards() + "), " + task.idColumn() + ") WHERE " + task.statusColumn() + " = "
                + task.pendingStatus());
    }
}
