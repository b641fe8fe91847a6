package io.shardscan.core;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

/** {@code schedule} on MariaDB with JDBC coordination. */
@ServerTests
class MariaDbScheduleTests extends ScheduleContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.mariadbDatabase("schedule");
    }
}
