package io.shardscan.core;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

@ServerTests
class PostgresSkewedClocksTests extends SkewedClocksContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.postgresDatabase("skewed_clocks");
    }

    @Override
    String epochMillisNow() {
        return "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)";
    }
}
