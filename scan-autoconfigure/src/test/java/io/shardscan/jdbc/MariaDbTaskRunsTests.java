package io.shardscan.jdbc;

import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

class MariaDbTaskRunsTests extends TaskRunsContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.mariadbDatabase("task_runs");
    }
}
