package io.shardscan.core;

import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

/** {@code schedule} on H2 with JDBC coordination. */
class H2ScheduleTests extends ScheduleContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.h2("schedule");
    }
}
