package io.shardscan.core;

import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.testsupport.ServerTests;

/** Damping for a flapping node with the JDBC coordinator, on PostgreSQL. */
@ServerTests
class PostgresRejoinHoldTests extends RejoinHoldContractTests {

    @Override
    ShardCoordinator coordinator() {
        return new JdbcShardCoordinator(dataSource);
    }
}
