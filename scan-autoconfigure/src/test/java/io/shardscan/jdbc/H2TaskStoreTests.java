package io.shardscan.jdbc;

import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

class H2TaskStoreTests extends TaskStoreContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.h2("task_store");
    }
}
