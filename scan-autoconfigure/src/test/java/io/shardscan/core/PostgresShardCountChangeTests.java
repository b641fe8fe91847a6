package io.shardscan.core;

import io.shardscan.jdbc.JdbcShardCoordinator;

/** A rolling change of {@code shards} with the JDBC coordinator, on PostgreSQL. */
class PostgresShardCountChangeTests extends ShardCountChangeContractTests {

    @Override
    ShardCoordinator coordinator() {
        return new JdbcShardCoordinator(dataSource);
    }
}
