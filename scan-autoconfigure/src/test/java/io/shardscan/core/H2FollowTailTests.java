package io.shardscan.core;

import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

/** The open tail of a following range task on H2. */
class H2FollowTailTests extends FollowTailContractTests {

    @Override
    protected DataSource createDataSource() {
        return TestServers.h2("follow_tail");
    }
}
