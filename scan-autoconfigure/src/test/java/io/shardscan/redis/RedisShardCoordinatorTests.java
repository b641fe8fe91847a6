package io.shardscan.redis;

import io.shardscan.core.ShardCoordinator;
import io.shardscan.jdbc.ShardCoordinatorContractTests;
import io.shardscan.testsupport.TestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

class RedisShardCoordinatorTests extends ShardCoordinatorContractTests {

    private static LettuceConnectionFactory connectionFactory;

    @BeforeAll
    static void connect() {
        connectionFactory = new LettuceConnectionFactory(
                TestServers.redis().host(), TestServers.redis().port());
        connectionFactory.afterPropertiesSet();
        connectionFactory.start();
    }

    @AfterAll
    static void disconnect() {
        connectionFactory.destroy();
    }

    @Override
    protected ShardCoordinator createCoordinator() {
        return new RedisShardCoordinator(connectionFactory);
    }
}
