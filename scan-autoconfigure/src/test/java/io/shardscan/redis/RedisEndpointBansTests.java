package io.shardscan.redis;

import io.shardscan.core.EndpointBans;
import io.shardscan.jdbc.EndpointBansContractTests;
import io.shardscan.testsupport.RedisConnections;
import io.shardscan.testsupport.ServerTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

@ServerTests
class RedisEndpointBansTests extends EndpointBansContractTests {

    private static LettuceConnectionFactory connectionFactory;

    @BeforeAll
    static void connect() {
        connectionFactory = RedisConnections.shared();
    }

    @AfterAll
    static void disconnect() {
        connectionFactory.destroy();
    }

    @Override
    protected EndpointBans createStore() {
        return new RedisEndpointBans(connectionFactory);
    }
}
