package io.shardscan.core;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

/** {@code run: until-empty} on PostgreSQL with JDBC coordination. */
@ServerTests
class PostgresUntilEmptyTests extends UntilEmptyContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.postgresDatabase("until_empty");
    }
}
