package io.shardscan.core;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

/** {@code run: until-empty} on MariaDB with JDBC coordination: the run counts' CASE update runs left to right there. */
@ServerTests
class MariaDbUntilEmptyTests extends UntilEmptyContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.mariadbDatabase("until_empty");
    }
}
