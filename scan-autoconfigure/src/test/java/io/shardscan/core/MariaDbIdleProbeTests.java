package io.shardscan.core;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

@ServerTests
class MariaDbIdleProbeTests extends IdleProbeContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.mariadbDatabase("idle_probe");
    }
}
