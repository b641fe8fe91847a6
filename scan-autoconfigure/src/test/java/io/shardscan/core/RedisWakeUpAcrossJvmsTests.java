package io.shardscan.core;

import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.spi.WakeChannel;
import io.shardscan.redis.RedisShardCoordinator;
import io.shardscan.redis.RedisWakeChannel;
import io.shardscan.testsupport.RedisConnections;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Wake-ups through Redis pub/sub, with Redis coordination, to a node in another JVM. */
class RedisWakeUpAcrossJvmsTests extends WakeUpAcrossJvmsContractTests {

    private LettuceConnectionFactory connection;

    @Override
    String transport() {
        return "redis";
    }

    private LettuceConnectionFactory connection() {
        if (connection == null) {
            connection = RedisConnections.shared();
        }
        return connection;
    }

    @Override
    ShardCoordinator coordinator() {
        return new RedisShardCoordinator(connection());
    }

    @Override
    WakeChannel channel(DataSource dataSource) {
        return new RedisWakeChannel(connection());
    }

    @AfterEach
    void closeConnection() {
        if (local != null) {
            local.stop();
        }
        if (connection != null) {
            connection.destroy();
        }
    }
}
