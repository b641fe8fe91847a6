package io.shardscan.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.spi.EndpointBans;
import io.shardscan.jdbc.EndpointBansContractTests;
import io.shardscan.testsupport.RedisConnections;
import io.shardscan.testsupport.ServerTests;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

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

    /** Rescores every trip of {@code task} to time 0, as if Redis's clock had moved past the window. */
    @Override
    protected void ageTrips(String task) {
        StringRedisTemplate redis = new StringRedisTemplate(connectionFactory);
        Set<String> keys = redis.keys(new TaskKeys(task).endpointTrips("*"));
        assertThat(keys).isNotEmpty();
        for (String key : keys) {
            Set<String> trips = redis.opsForZSet().range(key, 0, -1);
            trips.forEach(trip -> redis.opsForZSet().add(key, trip, 0));
        }
    }
}
