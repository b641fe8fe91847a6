package io.shardscan.jdbc;

import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

@ServerTests
class PostgresNoAutoCommitTests extends NoAutoCommitContractTests {

    @Override
    JdbcEndpoint endpoint() {
        return TestServers.postgresEndpoint("no_autocommit");
    }

    @Override
    DataSource autoCommitting() {
        return TestServers.postgresDatabase("no_autocommit");
    }
}
