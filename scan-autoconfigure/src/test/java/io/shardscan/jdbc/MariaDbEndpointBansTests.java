package io.shardscan.jdbc;

import io.shardscan.core.spi.EndpointBans;
import io.shardscan.testsupport.JvmZoneNotTheServers;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

@ServerTests
class MariaDbEndpointBansTests extends EndpointBansContractTests {

    private final DataSource dataSource = TestServers.mariadbDatabase("endpoint_bans");

    @RegisterExtension
    static final JvmZoneNotTheServers zone =
            new JvmZoneNotTheServers(() -> TestServers.mariadbDatabase("endpoint_bans"));

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
