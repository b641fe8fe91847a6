package io.shardscan.jdbc;

import io.shardscan.core.ShardCoordinator;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

class H2ShardCoordinatorTests extends ShardCoordinatorContractTests {

    @Override
    protected ShardCoordinator createCoordinator() {
        DataSource dataSource = TestServers.h2("coordinator");
        new OrderTable(dataSource).coordinationTables();
        return new JdbcShardCoordinator(dataSource);
    }
}
