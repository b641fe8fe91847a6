package io.shardscan.core;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

/** {@code schedule} on PostgreSQL with JDBC coordination. */
@ServerTests
class PostgresScheduleTests extends ScheduleContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.postgresDatabase("schedule");
    }
}
