package io.shardscan.jdbc;

import io.shardscan.core.ShardCoordinator;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

class PostgresShardCoordinatorTests extends ShardCoordinatorContractTests {

    @Override
    protected ShardCoordinator createCoordinator() {
        DataSource dataSource = TestServers.postgresDatabase("coordinator");
        new OrderTable(dataSource).coordinationTables();
        return new JdbcShardCoordinator(dataSource);
    }
}
