package io.shardscan.jdbc;

import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

class H2FailureGroupsTests extends FailureGroupsContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.h2("failure_groups");
    }
}
