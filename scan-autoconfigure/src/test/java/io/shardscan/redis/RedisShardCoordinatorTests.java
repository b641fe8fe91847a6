package io.shardscan.redis;

import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.jdbc.ShardCoordinatorContractTests;
import io.shardscan.testsupport.RedisConnections;
import io.shardscan.testsupport.ServerTests;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

@ServerTests
class RedisShardCoordinatorTests extends ShardCoordinatorContractTests {

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
    protected ShardCoordinator createCoordinator() {
        return new RedisShardCoordinator(connectionFactory);
    }

    @Override
    protected Counter createCounter(String name) {
        StringRedisTemplate redis = new StringRedisTemplate(connectionFactory);
        String key = "scan-fuzz-counter:" + name;
        // GET then SET, never INCR: the lease alone must keep two holders from losing an update
        return new Counter() {
            @Override
            public long read() {
                String value = redis.opsForValue().get(key);
                return value == null ? 0 : Long.parseLong(value);
            }

            @Override
            public void write(long value) {
                redis.opsForValue().set(key, Long.toString(value), Duration.ofMinutes(5));
            }
        };
    }

    @Override
    protected void storeCounters(String task, String node, String encoded) {
        new StringRedisTemplate(connectionFactory).opsForHash().put(new TaskKeys(task).memberCounters(), node, encoded);
    }
}
