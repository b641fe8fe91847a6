package io.shardscan.core;

import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.redis.RedisShardCoordinator;
import io.shardscan.testsupport.RedisConnections;
import io.shardscan.testsupport.ServerTests;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** A rolling change of {@code shards} with the Redis coordinator (the walk-through's setup), rows on PostgreSQL. */
@ServerTests
class RedisShardCountChangeTests extends ShardCountChangeContractTests {

    private final List<LettuceConnectionFactory> connections = new CopyOnWriteArrayList<>();

    @Override
    ShardCoordinator coordinator() {
        LettuceConnectionFactory factory = RedisConnections.shared();
        connections.add(factory);
        return new RedisShardCoordinator(factory);
    }

    @AfterEach
    void closeConnections() {
        // JUnit runs extensions' afterEach after the class's @AfterEach: stop the engines first
        engines.afterEach(null);
        connections.forEach(LettuceConnectionFactory::destroy);
    }
}
