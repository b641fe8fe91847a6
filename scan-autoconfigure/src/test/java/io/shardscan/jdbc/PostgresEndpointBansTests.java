package io.shardscan.jdbc;

import io.shardscan.core.spi.EndpointBans;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

@ServerTests
class PostgresEndpointBansTests extends EndpointBansContractTests {

    private final DataSource dataSource = TestServers.postgresDatabase("endpoint_bans");

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
