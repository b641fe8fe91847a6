package io.shardscan.testsupport;

import java.time.Duration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Started Lettuce connection factories to a test's Redis; the caller destroys each. */
public final class RedisConnections {

    private RedisConnections() {}

    /** A started connection factory to {@code host:port} with Lettuce's default command timeout. */
    public static LettuceConnectionFactory open(String host, int port) {
        return started(new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port)));
    }

    /** A started connection factory to {@code host:port} whose commands time out after {@code commandTimeout}. */
    public static LettuceConnectionFactory open(String host, int port, Duration commandTimeout) {
        return started(new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(host, port),
                LettuceClientConfiguration.builder()
                        .commandTimeout(commandTimeout)
                        .build()));
    }

    /** A started connection factory to the suite's shared Redis ({@link TestServers#redis()}). */
    public static LettuceConnectionFactory shared() {
        return open(TestServers.redis().host(), TestServers.redis().port());
    }

    private static LettuceConnectionFactory started(LettuceConnectionFactory factory) {
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }
}
