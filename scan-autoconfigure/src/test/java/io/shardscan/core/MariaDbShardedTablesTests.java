package io.shardscan.core;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

/** A sharded task over two MariaDb databases. */
@ServerTests
class MariaDbShardedTablesTests extends ShardedTablesContractTests {

    @Override
    DataSource dataSource(String database) {
        return TestServers.mariadbDatabase(database);
    }
}
