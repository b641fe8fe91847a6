package io.shardscan.redis;

import io.shardscan.core.GracefulShutdownContractTests;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.ServerTests;
import java.time.Duration;
import javax.sql.DataSource;

/** A graceful stop on PostgreSQL with Redis leases, each node on connections of its own. */
@ServerTests
class RedisGracefulShutdownTests extends GracefulShutdownContractTests {

    /** Its own engines stay unused: the contract starts the nodes. */
    final RedisNodes cluster =
            new RedisNodes(new Engines(), "redis_graceful_shutdown", Duration.ofSeconds(2), Duration.ZERO, 4);

    @Override
    protected void closeCoordinators() {
        cluster.close(true);
    }

    @Override
    protected DataSource dataSource() {
        return cluster.dataSource;
    }

    @Override
    protected ShardCoordinator coordinator() {
        return cluster.coordinator();
    }

    @Override
    protected String taskName() {
        return cluster.name;
    }
}
