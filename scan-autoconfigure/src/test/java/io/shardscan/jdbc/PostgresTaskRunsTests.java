package io.shardscan.jdbc;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

@ServerTests
class PostgresTaskRunsTests extends TaskRunsContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.postgresDatabase("task_runs");
    }
}
