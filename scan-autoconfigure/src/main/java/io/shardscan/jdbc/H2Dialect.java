package io.shardscan.jdbc;

import io.shardscan.core.TaskDefinition;

/** H2: a generated shard column, as on MySQL. */
final class H2Dialect extends GeneratedShardColumnDialect {

    @Override
    public String name() {
        return "h2";
    }

    @Override
    String shareLock() {
        // H2 has no shared row lock; an exclusive one serializes this node's write-backs of a shard
        return " FOR UPDATE";
    }

    @Override
    String nowPlusMillis() {
        return "DATEADD(MILLISECOND, ?, LOCALTIMESTAMP)";
    }

    @Override
    String now() {
        return "LOCALTIMESTAMP";
    }

    @Override
    String generatedColumn(TaskDefinition task) {
        return "INT GENERATED ALWAYS AS (MOD(" + task.shardKeyColumn() + ", " + task.shards() + "))";
    }
}
