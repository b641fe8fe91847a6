package io.shardscan.core;

import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.redis.RedisShardCoordinator;
import io.shardscan.testsupport.RedisConnections;
import io.shardscan.testsupport.ServerTests;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Damping for a flapping node with the Redis coordinator, rows on PostgreSQL. */
@ServerTests
class RedisRejoinHoldTests extends RejoinHoldContractTests {

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
