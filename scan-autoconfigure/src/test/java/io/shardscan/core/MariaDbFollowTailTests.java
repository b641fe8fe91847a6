package io.shardscan.core;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

/** The open tail of a following range task on MariaDB. */
@ServerTests
class MariaDbFollowTailTests extends FollowTailContractTests {

    @Override
    protected DataSource createDataSource() {
        return TestServers.mariadbDatabase("follow_tail");
    }
}
