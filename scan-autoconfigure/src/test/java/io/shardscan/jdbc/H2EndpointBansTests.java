package io.shardscan.jdbc;

import io.shardscan.core.EndpointBans;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

class H2EndpointBansTests extends EndpointBansContractTests {

    @Override
    protected EndpointBans createStore() {
        DataSource dataSource = TestServers.h2("endpoint_bans");
        new OrderTable(dataSource).coordinationTables();
        return new JdbcEndpointBans(dataSource);
    }
}
