package io.shardscan.core;

import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

/** A graceful stop on H2 with JDBC leases. */
class GracefulShutdownTests extends GracefulShutdownContractTests {

    final DataSource h2 = TestServers.h2("graceful_shutdown");

    @Override
    protected DataSource dataSource() {
        return h2;
    }

    @Override
    protected ShardCoordinator coordinator() {
        return new JdbcShardCoordinator(h2);
    }

    @Override
    protected String taskName() {
        return "orders";
    }
}
