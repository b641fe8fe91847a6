package io.shardscan.jdbc;

import io.shardscan.core.TaskDefinition;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Databases without partial indexes: the shard lives in a generated column, and an index on
 * (status, shard, retries, id) puts the pending fresh rows of one shard side by side in id order,
 * so finished rows, under another status prefix, are never read by the fetch, and a tier of
 * failed rows reads only the failed rows of its shard. A task that never retries needs no
 * retries column in the index.
 */
abstract sealed class GeneratedShardColumnDialect extends SqlDialect permits MySqlDialect, H2Dialect {

    /** The type and expression of the generated shard column, after {@code ADD COLUMN name}. */
    abstract String generatedColumn(TaskDefinition task);

    @Override
    boolean hasScanIndex(DatabaseMetaData metaData, TaskDefinition task, TableNames names) throws SQLException {
        if (names.shardColumn() == null) {
            return false;
        }
        List<String> wanted = List.of(names.status(), names.shardColumn(), names.retries(), names.id());
        List<String> withoutRetries = List.of(names.status(), names.shardColumn(), names.id());
        Map<String, Map<Integer, String>> indexes = new TreeMap<>();
        try (ResultSet rs = metaData.getIndexInfo(null, names.schema(), names.table(), false, false)) {
            while (rs.next()) {
                String index = rs.getString("INDEX_NAME");
                String column = rs.getString("COLUMN_NAME");
                if (index != null && column != null) {
                    indexes.computeIfAbsent(index, i -> new TreeMap<>())
                            .put((int) rs.getShort("ORDINAL_POSITION"), column);
                }
            }
        }
        for (Map<Integer, String> columns : indexes.values()) {
            List<String> leading = new ArrayList<>(columns.values());
            if (leadsWith(leading, wanted) || (!hasRetryTiers(task) && leadsWith(leading, withoutRetries))) {
                return true;
            }
        }
        return false;
    }

    private static boolean leadsWith(List<String> columns, List<String> wanted) {
        return columns.size() >= wanted.size()
                && columns.subList(0, wanted.size()).stream()
                        .map(String::toLowerCase)
                        .toList()
                        .equals(wanted.stream().map(String::toLowerCase).toList());
    }

    @Override
    List<String> scanIndexStatements(TaskDefinition task) {
        return List.of(
                "ALTER TABLE " + task.table() + " ADD COLUMN " + task.shardColumn() + " " + generatedColumn(task),
                "CREATE INDEX " + indexName(task) + " ON " + task.table() + " (" + task.statusColumn() + ", "
                        + task.shardColumn() + ", " + task.retryColumn() + ", " + task.idColumn() + ")");
    }
}
