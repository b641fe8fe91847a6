package io.shardscan.jdbc;

import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

class H2ShardCoordinatorTests extends ShardCoordinatorContractTests {

    private final DataSource dataSource = TestServers.h2("coordinator");

    @Override
    protected ShardCoordinator createCoordinator() {
        new OrderTable(dataSource).coordinationTables();
        return new JdbcShardCoordinator(dataSource);
    }

    @Override
    protected Counter createCounter(String name) {
        return new JdbcCounter(dataSource, name);
    }

    @Override
    protected void storeCounters(String task, String node, String encoded) {
        new org.springframework.jdbc.core.JdbcTemplate(dataSource)
                .update("UPDATE scan_member SET counters = ? WHERE task = ? AND node = ?", encoded, task, node);
    }
}
