package io.shardscan.redis;

import io.shardscan.core.spi.EndpointBan;
import io.shardscan.core.spi.EndpointBans;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * {@link EndpointBans} on Redis: an endpoint's trips are a sorted set scored by Redis's {@code TIME}
 * ({@code scan:{task}:endpoint-trips:<endpoint>}), added, trimmed to the window and counted by one
 * script; the task's bans are one hash ({@code scan:{task}:endpoint-bans}). Every key carries the
 * task's hash tag, so each script's keys share one cluster slot. Thread-safe.
 */
public final class RedisEndpointBans implements EndpointBans {

    private static final RedisScript<Long> TRIP = script("endpoint-trip.lua", Long.class);
    private static final RedisScript<Long> BAN = script("endpoint-ban.lua", Long.class);
    private static final RedisScript<List<Object>> BANS = script("endpoint-bans.lua", listType());
    private static final RedisScript<Long> PROBE = script("endpoint-probe.lua", Long.class);
    private static final RedisScript<Long> LIFT = script("endpoint-lift.lua", Long.class);

    private final StringRedisTemplate redis;
    private final String namespace;

    /** Creates the store on the given connections; the factory must be started. */
    public RedisEndpointBans(RedisConnectionFactory connectionFactory) {
        this(connectionFactory, "");
    }

    /**
     * Bans on the given connections; the factory must be started.
     *
     * @param namespace what the keys of every task start with, in their hash tag ({@code scan:{namespace/task}:});
     *     empty for {@code scan:{task}:}
     */
    public RedisEndpointBans(RedisConnectionFactory connectionFactory, String namespace) {
        this.redis = new StringRedisTemplate(Objects.requireNonNull(connectionFactory, "connectionFactory"));
        this.namespace = Objects.requireNonNull(namespace, "namespace");
    }

    @Override
    public int trip(String task, String endpoint, Duration window) {
        Long trips = redis.execute(
                TRIP,
                List.of(keys(task).endpointTrips(endpoint)),
                Long.toString(window.toMillis()),
                UUID.randomUUID().toString());
        return trips == null ? 0 : trips.intValue();
    }

    @Override
    public boolean ban(String task, String endpoint, Duration ban, String reason) {
        TaskKeys keys = keys(task);
        Long started = redis.execute(
                BAN,
                List.of(keys.endpointBans(), keys.endpointTrips(endpoint)),
                endpoint,
                Long.toString(ban.toMillis()),
                reason);
        return started != null && started == 1;
    }

    @Override
    public List<EndpointBan> bans(String task) {
        List<Object> reply = redis.execute(BANS, List.of(keys(task).endpointBans()));
        if (reply == null || reply.isEmpty()) {
            return List.of();
        }
        long now = Long.parseLong(String.valueOf(reply.get(0)));
        List<EndpointBan> bans = new ArrayList<>();
        for (int i = 1; i + 1 < reply.size(); i += 2) {
            String[] value = String.valueOf(reply.get(i + 1)).split("\\|", 3);
            long until = Long.parseLong(value[1]);
            bans.add(new EndpointBan(
                    String.valueOf(reply.get(i)),
                    Instant.ofEpochMilli(Long.parseLong(value[0])),
                    Instant.ofEpochMilli(until),
                    value.length > 2 ? value[2] : null,
                    until > now));
        }
        bans.sort(Comparator.comparing(EndpointBan::endpoint));
        return bans;
    }

    @Override
    public boolean claimProbe(String task, String endpoint, Duration hold) {
        Long won = redis.execute(PROBE, List.of(keys(task).endpointBans()), endpoint, Long.toString(hold.toMillis()));
        return won != null && won == 1;
    }

    @Override
    public boolean lift(String task, String endpoint) {
        TaskKeys keys = keys(task);
        Long lifted = redis.execute(LIFT, List.of(keys.endpointBans(), keys.endpointTrips(endpoint)), endpoint);
        return lifted != null && lifted == 1;
    }

    private TaskKeys keys(String task) {
        return new TaskKeys(namespace, Objects.requireNonNull(task, "task"));
    }

    private static <T> RedisScript<T> script(String name, Class<T> resultType) {
        return RedisScript.of(new ClassPathResource("io/shardscan/redis/" + name), resultType);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Class<List<Object>> listType() {
        return (Class) List.class;
    }
}
