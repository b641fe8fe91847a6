package io.shardscan.jdbc;

import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

class PostgresTaskStoreTests extends TaskStoreContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.postgresDatabase("task_store");
    }
}
