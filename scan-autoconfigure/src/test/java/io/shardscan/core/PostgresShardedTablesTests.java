package io.shardscan.core;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

/** A sharded task over two Postgres databases. */
@ServerTests
class PostgresShardedTablesTests extends ShardedTablesContractTests {

    @Override
    DataSource dataSource(String database) {
        return TestServers.postgresDatabase(database);
    }
}
