package io.shardscan.redis;

import io.shardscan.core.spi.Lease;
import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.spi.Member;
import io.shardscan.core.spi.NodeCounters;
import io.shardscan.core.spi.ShardCoordinator;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * A {@link ShardCoordinator} on Redis (5 or later, standalone, Sentinel or Cluster). Every operation
 * is one Lua script on the keys of one task, which share a hash tag ({@code scan:{task}:...}), so
 * each change is atomic and lands in one cluster slot. Leases expire by Redis's own {@code PX} and
 * heartbeats are scored by Redis's {@code TIME}; no two clocks are ever compared. Epochs come from
 * one counter per task.
 *
 * <p>When Redis cannot be reached, every method throws a {@link
 * org.springframework.dao.DataAccessException} (for example {@code RedisConnectionFailureException}
 * or {@code QueryTimeoutException}); how long a call waits before it throws is the connection
 * factory's command timeout, which should stay below the lease TTL. Thread-safe.
 */
public final class RedisShardCoordinator implements ShardCoordinator {

    private static final RedisScript<Long> ACQUIRE = script("acquire.lua", Long.class);
    private static final RedisScript<List<Object>> RENEW = script("renew.lua", listType());
    private static final RedisScript<Long> RELEASE = script("release.lua", Long.class);
    private static final RedisScript<List<Object>> HEARTBEAT = script("heartbeat.lua", listType());
    private static final RedisScript<List<Object>> LEASES = script("leases.lua", listType());

    private final StringRedisTemplate redis;
    private final String namespace;
    private final String location;

    /** Creates a coordinator on the given connections, in the empty namespace; the factory must be started. */
    public RedisShardCoordinator(RedisConnectionFactory connectionFactory) {
        this(connectionFactory, "");
    }

    /**
     * Creates a coordinator on the given connections; the factory must be started.
     *
     * @param namespace what the keys of every task start with, in their hash tag ({@code scan:{namespace/task}:});
     *     empty for {@code scan:{task}:}
     */
    public RedisShardCoordinator(RedisConnectionFactory connectionFactory, String namespace) {
        this.redis = new StringRedisTemplate(Objects.requireNonNull(connectionFactory, "connectionFactory"));
        this.namespace = Objects.requireNonNull(namespace, "namespace");
        this.location = RedisLocation.of(connectionFactory);
    }

    @Override
    public String kind() {
        return "redis";
    }

    @Override
    public String location() {
        return location;
    }

    @Override
    public List<Member> heartbeat(String task, String node, Duration timeout) {
        return heartbeat(task, node, timeout, "");
    }

    @Override
    public List<Member> heartbeat(String task, String node, Duration timeout, NodeCounters counters) {
        return heartbeat(task, node, timeout, counters.encode());
    }

    private List<Member> heartbeat(String task, String node, Duration timeout, String counters) {
        Objects.requireNonNull(node, "node");
        TaskKeys keys = keys(task);
        List<Object> reply =
                run(HEARTBEAT, List.of(keys.members(), keys.memberCounters()), node, millis(timeout), counters);
        List<Member> members = new ArrayList<>(reply.size() / 3);
        for (int i = 0; i + 2 < reply.size(); i += 3) {
            members.add(new Member(
                    String.valueOf(reply.get(i)),
                    Instant.ofEpochMilli(number(reply.get(i + 1))),
                    NodeCounters.decode(reply.get(i + 2) instanceof String text ? text : null)));
        }
        members.sort(Comparator.comparing(Member::node));
        return members;
    }

    @Override
    public Optional<Lease> tryAcquire(String task, int shard, String node, Duration ttl) {
        Objects.requireNonNull(node, "node");
        TaskKeys keys = keys(task);
        Long epoch = redis.execute(
                ACQUIRE,
                List.of(keys.lease(shard), keys.epoch(), keys.epochs()),
                node,
                millis(ttl),
                Integer.toString(shard));
        return epoch == null ? Optional.empty() : Optional.of(new Lease(shard, epoch));
    }

    @Override
    public List<Integer> renew(String task, String node, Map<Integer, Long> leases, Duration ttl) {
        Objects.requireNonNull(node, "node");
        TaskKeys keys = keys(task);
        if (leases.isEmpty()) {
            return List.of();
        }
        List<Integer> shards = new ArrayList<>(new TreeMap<>(leases).keySet());
        List<String> leaseKeys = new ArrayList<>(shards.size());
        String[] args = new String[shards.size() + 1];
        args[0] = millis(ttl);
        for (int i = 0; i < shards.size(); i++) {
            int shard = shards.get(i);
            leaseKeys.add(keys.lease(shard));
            args[i + 1] = value(leases.get(shard), node);
        }
        List<Integer> renewed = new ArrayList<>();
        for (Object index : run(RENEW, leaseKeys, (Object[]) args)) {
            renewed.add(shards.get((int) number(index) - 1));
        }
        return renewed;
    }

    @Override
    public void release(String task, int shard, String node, long epoch) {
        Objects.requireNonNull(node, "node");
        redis.execute(RELEASE, List.of(keys(task).lease(shard)), value(epoch, node));
    }

    @Override
    public void leave(String task, String node) {
        redis.opsForZSet().remove(keys(task).members(), Objects.requireNonNull(node, "node"));
        redis.opsForHash().delete(keys(task).memberCounters(), node);
    }

    @Override
    public List<LeaseInfo> leases(String task) {
        TaskKeys keys = keys(task);
        // The shards come first, in a read of their own: a script must declare every key it
        // touches, and the lease keys are only known from this list. A grant in between is missed
        // by this view only.
        List<Integer> shards = redis.<String, String>opsForHash().keys(keys.epochs()).stream()
                .map(Integer::valueOf)
                .sorted()
                .toList();
        if (shards.isEmpty()) {
            return List.of();
        }
        List<String> scriptKeys = new ArrayList<>(List.of(keys.epochs()));
        shards.forEach(shard -> scriptKeys.add(keys.lease(shard)));
        List<Object> reply =
                run(LEASES, scriptKeys, shards.stream().map(String::valueOf).toArray());
        // reply.get(0) is the server's time; each lease carries its own expiry
        List<LeaseInfo> leases = new ArrayList<>(shards.size());
        for (int i = 0; i < shards.size(); i++) {
            leases.add(leaseInfo(shards.get(i), reply.subList(1 + 3 * i, 4 + 3 * i)));
        }
        return leases;
    }

    /** One shard's entry of the leases script: its lease value, expiry in epoch ms and last granted epoch. */
    private static LeaseInfo leaseInfo(int shard, List<Object> entry) {
        String value = String.valueOf(entry.get(0));
        long epoch = Long.parseLong(String.valueOf(entry.get(2)));
        if (value.isEmpty()) {
            return new LeaseInfo(shard, null, epoch, null);
        }
        String owner = value.substring(value.indexOf(':') + 1);
        return new LeaseInfo(shard, owner, epoch, Instant.ofEpochMilli(number(entry.get(1))));
    }

    private List<Object> run(RedisScript<List<Object>> script, List<String> keys, Object... args) {
        List<Object> reply = redis.execute(script, keys, args);
        return reply == null ? List.of() : reply;
    }

    private TaskKeys keys(String task) {
        return new TaskKeys(namespace, Objects.requireNonNull(task, "task"));
    }

    /** A lease's value in Redis: the epoch first, so that a node id may contain ':'. */
    private static String value(long epoch, String node) {
        return epoch + ":" + node;
    }

    private static String millis(Duration duration) {
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("Duration must be positive: " + duration);
        }
        return Long.toString(duration.toMillis());
    }

    /** Scores come back as strings ("1700000000123" or "1.700000000123e12"), counts as numbers. */
    private static long number(Object reply) {
        return reply instanceof Number n ? n.longValue() : (long) Double.parseDouble(String.valueOf(reply));
    }

    private static <T> RedisScript<T> script(String name, Class<T> resultType) {
        return RedisScript.of(new ClassPathResource("io/shardscan/redis/" + name), resultType);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Class<List<Object>> listType() {
        return (Class) List.class;
    }
}
