package io.shardscan.redis;

import java.util.Collection;
import java.util.stream.Collectors;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Where a connection factory's Redis is, for the log lines that say it cannot be reached. */
final class RedisLocation {

    private RedisLocation() {}

    /**
     * The server of a Lettuce factory, e.g. {@code Redis at cache-1:6379}, {@code Redis cluster at
     * a:7000,b:7001} or {@code Redis master orders via sentinels s1:26379}; just {@code Redis} for
     * another factory.
     */
    static String of(RedisConnectionFactory factory) {
        if (!(factory instanceof LettuceConnectionFactory lettuce)) {
            return "Redis";
        }
        RedisSentinelConfiguration sentinel = lettuce.getSentinelConfiguration();
        if (lettuce.isRedisSentinelAware() && sentinel != null && sentinel.getMaster() != null) {
            return "Redis master " + sentinel.getMaster().getName() + " via sentinels "
                    + nodes(sentinel.getSentinels());
        }
        if (lettuce.isClusterAware() && lettuce.getClusterConfiguration() != null) {
            return "Redis cluster at " + nodes(lettuce.getClusterConfiguration().getClusterNodes());
        }
        if (lettuce.getSocketConfiguration() != null) {
            return "Redis at " + lettuce.getSocketConfiguration().getSocket();
        }
        return "Redis at " + lettuce.getHostName() + ":" + lettuce.getPort();
    }

    private static String nodes(Collection<RedisNode> nodes) {
        return nodes.stream().map(RedisNode::asString).sorted().collect(Collectors.joining(","));
    }
}
