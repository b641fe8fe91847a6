package io.shardscan.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.spi.RangeCursor;
import io.shardscan.jdbc.RangeCursorContractTests;
import io.shardscan.testsupport.RedisConnections;
import io.shardscan.testsupport.ServerTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

@ServerTests
class RedisRangeCursorTests extends RangeCursorContractTests {

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
    protected RangeCursor createCursor() {
        return new RedisRangeCursor(connectionFactory);
    }

    /** The key of a run that ended expires: old runs leave no key behind. */
    @Test
    void aRetiredRunsKeyExpires() {
        String task = "retired-" + System.nanoTime();
        RangeCursor cursor = createCursor();
        cursor.claim(task, 1, 100);
        StringRedisTemplate redis = new StringRedisTemplate(connectionFactory);
        String key = "scan:{" + task + "}:range-cursor:1";
        assertThat(redis.getExpire(key)).as("no expiry while the run runs").isEqualTo(-1);
        cursor.retire(task, 1);
        assertThat(redis.getExpire(key)).isBetween(1L, RangeCursor.RETIRED_TTL.toSeconds());
        cursor.claim(task, 1, 100);
        assertThat(redis.getExpire(key)).as("a late claim keeps the expiry").isPositive();
    }
}
