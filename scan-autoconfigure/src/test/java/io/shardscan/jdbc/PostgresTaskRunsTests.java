package io.shardscan.jdbc;

import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

class PostgresTaskRunsTests extends TaskRunsContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.postgresDatabase("task_runs");
    }
}
