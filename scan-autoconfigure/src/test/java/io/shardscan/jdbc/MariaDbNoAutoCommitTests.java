package io.shardscan.jdbc;

import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

@ServerTests
class MariaDbNoAutoCommitTests extends NoAutoCommitContractTests {

    @Override
    JdbcEndpoint endpoint() {
        return TestServers.mariadbEndpoint("no_autocommit");
    }

    @Override
    DataSource autoCommitting() {
        return TestServers.mariadbDatabase("no_autocommit");
    }
}
