package io.shardscan.jdbc;

import io.shardscan.core.EndpointBans;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

class MariaDbEndpointBansTests extends EndpointBansContractTests {

    @Override
    protected EndpointBans createStore() {
        DataSource dataSource = TestServers.mariadbDatabase("endpoint_bans");
        new OrderTable(dataSource).coordinationTables();
        return new JdbcEndpointBans(dataSource);
    }
}
