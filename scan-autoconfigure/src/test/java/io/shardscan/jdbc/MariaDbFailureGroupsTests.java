package io.shardscan.jdbc;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

@ServerTests
class MariaDbFailureGroupsTests extends FailureGroupsContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.mariadbDatabase("failure_groups");
    }
}
