package io.shardscan.redis;

import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.RedisConnections;
import io.shardscan.testsupport.TestServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Engines in one JVM on one PostgreSQL database, each with its own {@link RedisShardCoordinator} on
 * its own connections to the tests' Redis, as separate nodes would be; their handler records an
 * effect per row with the node, the lease epoch and a global sequence. Default lease settings.
 */
final class RedisNodes {

    static final Duration TTL = Duration.ofSeconds(6);
    static final Duration RENEW = Duration.ofSeconds(2);

    /** A task name of its own per test: the Redis keys of earlier tests (members, epochs) do not leak in. */
    final String name;

    final DataSource dataSource;
    final OrderTable table;
    final TaskDefinition task;
    final int shards;
    /** Simulated work per row before the effect is recorded. */
    volatile long handlerPauseNanos;

    private final Engines engines;
    private final Duration commandTimeout;
    private final List<ScanEngine> started = new ArrayList<>();
    private final List<LettuceConnectionFactory> connections = new ArrayList<>();
    private final RedisShardCoordinator observer;

    RedisNodes(Engines engines, String database, Duration commandTimeout, Duration handlerPause) {
        this(engines, database, commandTimeout, handlerPause, 64);
    }

    RedisNodes(Engines engines, String database, Duration commandTimeout, Duration handlerPause, int shards) {
        this.engines = engines;
        this.shards = shards;
        this.commandTimeout = commandTimeout;
        this.handlerPauseNanos = handlerPause.toNanos();
        this.name = database.replace('_', '-') + "-" + System.nanoTime();
        this.dataSource = TestServers.postgresDatabase(database);
        this.table = new OrderTable(dataSource).recreate(shards, true).coordinationTables();
        table.jdbc().execute("CREATE SEQUENCE IF NOT EXISTS effect_seq");
        this.task = TaskDefinition.builder(name)
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(shards)
                .build();
        this.observer = new RedisShardCoordinator(connect());
    }

    ScanEngine start(String node) {
        return start(node, coordinator());
    }

    /** Starts a node of the task with any coordinator (JDBC, static, a wrapped Redis one) and the effect handler. */
    ScanEngine start(String node, ShardCoordinator coordinator) {
        return start(node, coordinator, effect(node));
    }

    /** Starts a node of the task with the Redis coordinator, the effect handler and {@code listener}. */
    ScanEngine start(String node, ScanListener listener) {
        return start(node, coordinator(), effect(node), listener);
    }

    ScanEngine start(String node, ShardCoordinator coordinator, TaskHandler handler) {
        return start(node, coordinator, handler, ScanListener.NONE);
    }

    private ScanEngine start(String node, ShardCoordinator coordinator, TaskHandler handler, ScanListener listener) {
        ScanEngine engine = engines.start(
                node,
                dataSource,
                coordinator,
                new ScanEngine.ScanTask(task, handler),
                ScanClock.system(),
                listener,
                TTL,
                RENEW);
        started.add(engine);
        return engine;
    }

    /** Stops the engines, deletes the task's keys if Redis is up, and closes every connection. */
    void close(boolean deleteKeys) {
        started.forEach(ScanEngine::stop);
        if (deleteKeys) {
            // every connection: some are on another Redis database
            for (LettuceConnectionFactory connection : connections) {
                StringRedisTemplate redis = new StringRedisTemplate(connection);
                redis.delete(redis.keys("scan:{" + name + "}:*"));
            }
        }
        connections.forEach(LettuceConnectionFactory::destroy);
    }

    RedisShardCoordinator observer() {
        return observer;
    }

    /** A coordinator of its own, on connections of its own, as another node would have. */
    RedisShardCoordinator coordinator() {
        return new RedisShardCoordinator(connect());
    }

    /**
     * A coordinator on another database of the tests' Redis ({@code SELECT database}): its keys are
     * apart from every other coordinator's, as a node pointed at another Redis server would be.
     */
    RedisShardCoordinator coordinatorOfAnotherRedis(int database) {
        return new RedisShardCoordinator(connect(database));
    }

    /** Plain commands on the tests' Redis, to look at or change the task's keys. */
    StringRedisTemplate redis() {
        return new StringRedisTemplate(connections.get(0));
    }

    /** Live leases per owner, as the coordinator sees them. */
    Map<String, Long> owners() {
        return observer.leases(name).stream()
                .filter(l -> l.owner() != null)
                .collect(Collectors.groupingBy(LeaseInfo::owner, Collectors.counting()));
    }

    Map<Integer, String> ownerByShard() {
        Map<Integer, String> owners = new TreeMap<>();
        observer.leases(name).stream().filter(l -> l.owner() != null).forEach(l -> owners.put(l.shard(), l.owner()));
        return owners;
    }

    /**
     * Effects of a shard, in the order they were made, whose epoch is lower than that of an earlier
     * effect of the same shard: a handler that ran after a newer owner of its shard had started.
     */
    int epochsGoingBackwards() {
        return table.epochsGoingBackwards(shards);
    }

    /** Records an effect of {@code row} on {@code node} under the context's epoch, after the handler pause. */
    TaskHandler.PerRow effect(String node) {
        return (row, ctx) -> {
            long pause = handlerPauseNanos;
            if (pause > 0) {
                LockSupport.parkNanos(pause);
            }
            table.jdbc()
                    .update(
                            "INSERT INTO effect (order_id, user_id, node, epoch, seq)"
                                    + " VALUES (?, ?, ?, ?, nextval('effect_seq'))",
                            row.id(),
                            row.shardKey(),
                            node,
                            ctx.epoch());
            return null;
        };
    }

    private LettuceConnectionFactory connect() {
        return connect(0);
    }

    private LettuceConnectionFactory connect(int database) {
        RedisStandaloneConfiguration server = new RedisStandaloneConfiguration(
                TestServers.redis().host(), TestServers.redis().port());
        server.setDatabase(database);
        LettuceConnectionFactory factory = RedisConnections.connected(server, commandTimeout);
        connections.add(factory);
        return factory;
    }
}
