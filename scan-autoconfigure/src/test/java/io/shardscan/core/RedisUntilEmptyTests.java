package io.shardscan.core;

import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.redis.RedisShardCoordinator;
import io.shardscan.testsupport.RedisConnections;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@code run: until-empty} on PostgreSQL with Redis coordination: the run lives in the database
 * whoever grants the leases, so it ends once as with JDBC coordination.
 */
@ServerTests
class RedisUntilEmptyTests extends UntilEmptyContractTests {

    private final List<LettuceConnectionFactory> connections = new CopyOnWriteArrayList<>();

    @Override
    DataSource dataSource() {
        return TestServers.postgresDatabase("until_empty_redis");
    }

    @Override
    ShardCoordinator coordinator() {
        LettuceConnectionFactory factory = RedisConnections.shared();
        connections.add(factory);
        return new RedisShardCoordinator(factory);
    }

    @AfterEach
    void closeConnections() {
        // after the engines stopped: JUnit runs extensions' afterEach after the class's @AfterEach,
        // so stop them here first
        engines.afterEach(null);
        connections.forEach(LettuceConnectionFactory::destroy);
    }
}
