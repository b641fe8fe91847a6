package io.shardscan.jdbc;

import io.shardscan.core.TaskDefinition;

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
