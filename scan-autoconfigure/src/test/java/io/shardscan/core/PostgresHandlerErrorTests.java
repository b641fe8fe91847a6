package io.shardscan.core;

import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

class PostgresHandlerErrorTests extends HandlerErrorContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.postgresDatabase("handler_error");
    }
}
