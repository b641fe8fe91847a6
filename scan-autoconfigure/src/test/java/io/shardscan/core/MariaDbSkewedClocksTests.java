package io.shardscan.core;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

@ServerTests
class MariaDbSkewedClocksTests extends SkewedClocksContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.mariadbDatabase("skewed_clocks");
    }

    @Override
    String epochMillisNow() {
        return "CAST(ROUND(UNIX_TIMESTAMP(SYSDATE(6)) * 1000) AS SIGNED)";
    }
}
