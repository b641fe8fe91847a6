package io.shardscan.core;

import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

class H2IdleProbeTests extends IdleProbeContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.h2("idle_probe");
    }
}
