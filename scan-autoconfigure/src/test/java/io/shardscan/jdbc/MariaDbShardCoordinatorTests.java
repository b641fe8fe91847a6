package io.shardscan.jdbc;

import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.testsupport.JvmZoneNotTheServers;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

@ServerTests
class MariaDbShardCoordinatorTests extends ShardCoordinatorContractTests {

    @RegisterExtension
    static final JvmZoneNotTheServers zone = new JvmZoneNotTheServers(() -> TestServers.mariadbDatabase("coordinator"));

    private final DataSource dataSource = TestServers.mariadbDatabase("coordinator");

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
