package io.shardscan.core;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

@ServerTests
class PostgresHandlerErrorTests extends HandlerErrorContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.postgresDatabase("handler_error");
    }
}
