package io.shardscan.core;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

@ServerTests
class PostgresUnfetchableRowsTests extends UnfetchableRowsContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.postgresDatabase("unfetchable_rows");
    }
}
