package io.shardscan.testsupport;

import java.time.Duration;
import org.awaitility.Awaitility;
import org.springframework.data.redis.connection.RedisConnection;
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
        return open(new RedisStandaloneConfiguration(host, port), commandTimeout);
    }

    private static LettuceConnectionFactory open(RedisStandaloneConfiguration server, Duration commandTimeout) {
        return started(new LettuceConnectionFactory(
                server,
                LettuceClientConfiguration.builder()
                        .commandTimeout(commandTimeout)
                        .build()));
    }

    /**
     * A started connection factory to {@code server} whose commands time out after {@code commandTimeout},
     * returned once it has answered a PING. The first connection of a JVM loads Lettuce and Netty and
     * shakes hands with the server within the command timeout: a cold test JVM among three others on two
     * busy cores took longer than 500 ms for it (an outage test's timeout, ci1), while the short timeout
     * is meant for the test's commands, not for the connection it starts from.
     */
    public static LettuceConnectionFactory connected(RedisStandaloneConfiguration server, Duration commandTimeout) {
        LettuceConnectionFactory factory = open(server, commandTimeout);
        Awaitility.await("a first PING answered by " + server.getHostName() + ":" + server.getPort())
                .ignoreExceptions()
                .until(() -> {
                    try (RedisConnection connection = factory.getConnection()) {
                        return "PONG".equals(connection.ping());
                    }
                });
        return factory;
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
