package io.shardscan.bench;

import io.shardscan.core.EngineSettings;
import io.shardscan.core.InMemoryEndpointBans;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.spi.RangeStores;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.task.RangeJob;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.jdbc.JdbcRangeFailures;
import io.shardscan.jdbc.JdbcRangeLedger;
import io.shardscan.jdbc.JdbcRangeTable;
import io.shardscan.jdbc.JdbcRangeTransactions;
import io.shardscan.jdbc.JdbcTaskRuns;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.redis.RedisRangeCursor;
import io.shardscan.redis.RedisShardCoordinator;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * What a scenario runs against: the options, PostgreSQL and Redis, and factories for Shardscan
 * engines with the documented default lease settings (TTL 6 s, renewal every 2 s). Closes what it opened.
 */
public final class Bench implements AutoCloseable {

    /** The documented default lease TTL. */
    public static final Duration LEASE_TTL = Duration.ofSeconds(6);

    /** The documented default renew interval. */
    public static final Duration RENEW_INTERVAL = Duration.ofSeconds(2);

    private final Options options;
    private final String pgUrl;
    private final String redisUrl;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    public Bench(Options options, String pgUrl, String redisUrl) {
        this.options = options;
        this.pgUrl = pgUrl;
        this.redisUrl = redisUrl;
    }

    public Options options() {
        return options;
    }

    public String pgUrl() {
        return pgUrl;
    }

    public String redisUrl() {
        return redisUrl;
    }

    /** A new pool on the benchmark database, closed with this bench. */
    public Pg pg(int poolSize) {
        Pg pg = new Pg(pgUrl, poolSize);
        closeables.add(pg);
        return pg;
    }

    /** A started Lettuce connection factory with a 1 s command timeout, closed with this bench. */
    public LettuceConnectionFactory redis() {
        return redis(redisUrl, closeables);
    }

    /**
     * A started Lettuce connection factory with the command timeout of the starter's own Redis connection
     * (a third of the lease TTL), closed with this bench: for a scenario that runs the auto-configuration.
     */
    public LettuceConnectionFactory starterRedis() {
        return starterRedis(redisUrl, closeables);
    }

    static LettuceConnectionFactory redis(String url, List<AutoCloseable> closeables) {
        return redis(url, closeables, Duration.ofSeconds(1));
    }

    /** As {@link #starterRedis()}, for a node process of its own. */
    static LettuceConnectionFactory starterRedis(String url, List<AutoCloseable> closeables) {
        return redis(url, closeables, EngineSettings.callTimeout(LEASE_TTL));
    }

    private static LettuceConnectionFactory redis(String url, List<AutoCloseable> closeables, Duration timeout) {
        URI uri = URI.create(url);
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(
                        uri.getHost() == null ? "127.0.0.1" : uri.getHost(), uri.getPort() > 0 ? uri.getPort() : 6379),
                LettuceClientConfiguration.builder().commandTimeout(timeout).build());
        factory.afterPropertiesSet();
        factory.start();
        closeables.add(factory::destroy);
        return factory;
    }

    /** Deletes every Redis key of a task, so that a run starts with no leases, members or epochs. */
    public void clearRedis(String task) {
        StringRedisTemplate template = new StringRedisTemplate(redis());
        Set<String> keys = template.keys("scan:{" + task + "}:*");
        if (keys != null && !keys.isEmpty()) {
            template.delete(keys);
        }
    }

    /** The benchmark task on {@code bench_task}: 64 shards, pages of 200, the given workers. */
    public static TaskDefinition task(String name, int workers) {
        return TaskDefinition.builder(name)
                .table(Pg.TABLE)
                .idColumn("id")
                .shardKeyColumn("shard_key")
                .shards(Pg.SHARDS)
                .pageSize(200)
                .workers(workers)
                .build();
    }

    /** Engine settings with the documented defaults. */
    public static EngineSettings settings(String nodeId) {
        return new EngineSettings(nodeId, LEASE_TTL, RENEW_INTERVAL, LEASE_TTL, Duration.ofSeconds(10));
    }

    /** A node (not started) on a JDBC store and the given coordinator. */
    public static ScanEngine engine(
            String nodeId,
            TaskDefinition task,
            TaskHandler handler,
            DataSource dataSource,
            ShardCoordinator coordinator) {
        return new ScanEngine(
                List.of(new ScanEngine.ScanTask(task, handler)),
                new JdbcTaskStore(dataSource),
                coordinator,
                settings(nodeId),
                ScanClock.system(),
                ScanListener.NONE);
    }

    /** A node (not started) coordinated through this bench's Redis. */
    public ScanEngine engine(String nodeId, TaskDefinition task, TaskHandler handler, DataSource dataSource) {
        return engine(nodeId, task, handler, dataSource, new RedisShardCoordinator(redis()));
    }

    /**
     * A node (not started) running one range job, its cursor in this bench's Redis (as the leases of
     * {@link #engine(String, TaskDefinition, TaskHandler, DataSource)}), its runs and progress in the database.
     */
    public ScanEngine rangeEngine(String nodeId, RangeJob job, DataSource dataSource) {
        ScanClock clock = ScanClock.system();
        LettuceConnectionFactory redis = redis();
        EngineSettings settings = settings(nodeId);
        Duration timeout = settings.statementTimeout();
        return new ScanEngine(
                List.of(),
                new JdbcTaskStore(dataSource),
                new RedisShardCoordinator(redis),
                settings,
                clock,
                ScanListener.NONE,
                new InMemoryEndpointBans(clock),
                List.of(job),
                new RangeStores(
                        new JdbcTaskRuns(dataSource, timeout),
                        new RedisRangeCursor(redis),
                        new JdbcRangeLedger(dataSource, timeout),
                        new JdbcRangeTable(dataSource, timeout),
                        new JdbcRangeFailures(dataSource, timeout),
                        new JdbcRangeTransactions(dataSource, timeout)));
    }

    /** Closes pools and connections in reverse order of opening. */
    @Override
    public void close() {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            try {
                closeables.get(i).close();
            } catch (Exception e) {
                System.err.println("bench: could not close " + closeables.get(i) + ": " + e);
            }
        }
        closeables.clear();
    }
}
