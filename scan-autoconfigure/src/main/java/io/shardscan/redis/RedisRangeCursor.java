package io.shardscan.redis;

import io.shardscan.core.spi.RangeCursor;
import java.util.Objects;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A {@link RangeCursor} on one Redis counter per run ({@code scan:{task}:range-cursor:<run>}): a
 * claim is one {@code INCRBY}, atomic by itself. Should Redis lose the counter, claims hand out
 * ranges again; the range ledger refuses those, so nothing runs twice on that account. When Redis
 * cannot be reached, every method throws a {@link org.springframework.dao.DataAccessException}.
 * Thread-safe.
 */
public final class RedisRangeCursor implements RangeCursor {

    private final StringRedisTemplate redis;
    private final String namespace;

    /** Creates a cursor on the given connections; the factory must be started. */
    public RedisRangeCursor(RedisConnectionFactory connectionFactory) {
        this(connectionFactory, "");
    }

    /**
     * A cursor on the given connections; the factory must be started.
     *
     * @param namespace what the keys of every task start with, in their hash tag ({@code scan:{namespace/task}:});
     *     empty for {@code scan:{task}:}
     */
    public RedisRangeCursor(RedisConnectionFactory connectionFactory, String namespace) {
        this.redis = new StringRedisTemplate(Objects.requireNonNull(connectionFactory, "connectionFactory"));
        this.namespace = Objects.requireNonNull(namespace, "namespace");
    }

    @Override
    public long claim(String task, long run, long size) {
        Long next = redis.opsForValue().increment(new TaskKeys(namespace, task).rangeCursor(run), size);
        return Objects.requireNonNull(next, "INCRBY answered nothing") - size;
    }

    @Override
    public long peek(String task, long run) {
        String next = redis.opsForValue().get(new TaskKeys(namespace, task).rangeCursor(run));
        return next == null ? 0 : Long.parseLong(next);
    }

    @Override
    public void retire(String task, long run) {
        TaskKeys keys = new TaskKeys(namespace, task);
        // the run before was retired when it ended; this one's key may still be read by a late node
        redis.delete(keys.rangeCursor(run - 1));
        redis.expire(keys.rangeCursor(run), RETIRED_TTL);
    }

    @Override
    public String kind() {
        return "redis";
    }
}
