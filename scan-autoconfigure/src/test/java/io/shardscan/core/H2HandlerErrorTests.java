package io.shardscan.core;

import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

class H2HandlerErrorTests extends HandlerErrorContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.h2("handler_error");
    }
}
