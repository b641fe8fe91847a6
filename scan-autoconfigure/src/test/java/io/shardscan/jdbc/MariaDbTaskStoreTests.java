package io.shardscan.jdbc;

import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

class MariaDbTaskStoreTests extends TaskStoreContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.mariadbDatabase("task_store");
    }
}
