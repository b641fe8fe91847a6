package io.shardscan.jdbc;

import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

class H2NoAutoCommitTests extends NoAutoCommitContractTests {

    @Override
    JdbcEndpoint endpoint() {
        return TestServers.h2Endpoint("no_autocommit");
    }

    @Override
    DataSource autoCommitting() {
        return TestServers.h2("no_autocommit");
    }
}
