package io.shardscan.core;

import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

class PostgresIdleProbeTests extends IdleProbeContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.postgresDatabase("idle_probe");
    }
}
