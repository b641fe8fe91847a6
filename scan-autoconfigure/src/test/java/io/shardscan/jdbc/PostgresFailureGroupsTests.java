package io.shardscan.jdbc;

import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

class PostgresFailureGroupsTests extends FailureGroupsContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.postgresDatabase("failure_groups");
    }
}
