package io.shardscan.redis;

import io.shardscan.core.RangeCursor;
import io.shardscan.jdbc.RangeCursorContractTests;
import io.shardscan.testsupport.TestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

class RedisRangeCursorTests extends RangeCursorContractTests {

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
    protected RangeCursor createCursor() {
        return new RedisRangeCursor(connectionFactory);
    }
}
