package io.shardscan.jdbc;

import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

class H2TaskRunsTests extends TaskRunsContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.h2("task_runs");
    }
}
