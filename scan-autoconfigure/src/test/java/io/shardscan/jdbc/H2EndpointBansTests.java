package io.shardscan.jdbc;

import io.shardscan.core.spi.EndpointBans;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

class H2EndpointBansTests extends EndpointBansContractTests {

    private final DataSource dataSource = TestServers.h2("endpoint_bans");

    @Override
    protected EndpointBans createStore() {
        new OrderTable(dataSource).coordinationTables();
        return new JdbcEndpointBans(dataSource);
    }

    @Override
    protected void ageTrips(String task) {
        ageJdbcTrips(dataSource, task);
    }
}
