package io.shardscan.jdbc;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

@ServerTests
class PostgresFailureGroupsTests extends FailureGroupsContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.postgresDatabase("failure_groups");
    }
}
