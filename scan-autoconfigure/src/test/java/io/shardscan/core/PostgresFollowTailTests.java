package io.shardscan.core;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

/** The open tail of a following range task on PostgreSQL. */
@ServerTests
class PostgresFollowTailTests extends FollowTailContractTests {

    @Override
    protected DataSource createDataSource() {
        return TestServers.postgresDatabase("follow_tail");
    }
}
