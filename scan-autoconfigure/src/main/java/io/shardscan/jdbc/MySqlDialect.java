package io.shardscan.jdbc;

import io.shardscan.core.TaskDefinition;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/** MySQL and MariaDB: back-quoted names, a stored generated shard column. */
final class MySqlDialect extends GeneratedShardColumnDialect {

    @Override
    public String name() {
        return "mysql";
    }

    @Override
    String quote(String identifier) {
        return '`' + identifier + '`';
    }

    @Override
    String anyOf(int count) {
        // MySQL has no array parameters: an IN list of the page's ids
        return " IN (" + "?, ".repeat(count - 1) + "?)";
    }

    @Override
    void bindIds(PreparedStatement statement, int index, List<Long> ids) throws SQLException {
        for (int i = 0; i < ids.size(); i++) {
            statement.setLong(index + i, ids.get(i));
        }
    }

    @Override
    String shareLock() {
        return " LOCK IN SHARE MODE";
    }

    @Override
    String nowPlusMillis() {
        return "TIMESTAMPADD(MICROSECOND, ? * 1000, NOW(3))";
    }

    @Override
    String now() {
        return "NOW(3)";
    }

    @Override
    String generatedColumn(TaskDefinition task) {
        return "INT AS (MOD(" + task.shardKeyColumn() + ", " + task.shards() + ")) STORED";
    }
}
