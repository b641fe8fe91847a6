package io.shardscan.testsupport;

import com.zaxxer.hikari.HikariDataSource;
import io.shardscan.core.EngineSettings;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.ShardCoordinator;
import io.shardscan.core.TaskDefinition;
import io.shardscan.core.TaskHandler;
import io.shardscan.core.Tier;
import io.shardscan.core.WakeChannel;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.jdbc.PostgresWakeChannel;
import io.shardscan.redis.RedisShardCoordinator;
import io.shardscan.redis.RedisWakeChannel;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One node in a JVM of its own for the wake-up tests: {@link #task(int)} on {@code tb_order} (tier 0
 * every {@link #TIER_INTERVAL}, so only a wake-up picks a new row up soon), coordinated and woken
 * through Redis ({@code redis}) or through the database and PostgreSQL NOTIFY ({@code postgres}); the
 * handler records each call in {@code effect} (see {@link OrderTable}).
 *
 * <p>Arguments: {@code nodeId jdbcUrl dbUser dbPassword redisHost redisPort transport shards}. Prints
 * {@code READY <nodeId>} once started; stops gracefully at SIGTERM or when standard input ends.
 */
public final class WakeNodeMain {

    /** Tier 0's poll interval: far beyond any pickup a test waits for. */
    public static final Duration TIER_INTERVAL = Duration.ofSeconds(60);

    private WakeNodeMain() {}

    /** The task every wake-up test node runs, with {@code shards} shards. */
    public static TaskDefinition task(int shards) {
        return TaskDefinition.builder("order-sms")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(shards)
                .tiers(List.of(new Tier(0, 0, TIER_INTERVAL), new Tier(1, 5, TIER_INTERVAL)))
                .build();
    }

    /** The lease settings of every wake-up test node. */
    public static EngineSettings settings(String node) {
        return new EngineSettings(
                node, Duration.ofSeconds(6), Duration.ofSeconds(1), Duration.ofSeconds(6), Duration.ofSeconds(10));
    }

    public static void main(String[] args) throws IOException {
        String node = args[0];
        HikariDataSource dataSource = new JdbcEndpoint(args[1], args[2], args[3]).dataSource();
        boolean redis = args[6].equals("redis");
        TaskDefinition task = task(Integer.parseInt(args[7]));
        LettuceConnectionFactory connection = null;
        ShardCoordinator coordinator;
        WakeChannel channel;
        if (redis) {
            connection = RedisConnections.open(args[4], Integer.parseInt(args[5]), Duration.ofSeconds(2));
            coordinator = new RedisShardCoordinator(connection);
            channel = new RedisWakeChannel(connection);
        } else {
            coordinator = new JdbcShardCoordinator(dataSource);
            channel = new PostgresWakeChannel(dataSource);
        }
        OrderTable table = new OrderTable(dataSource);
        AtomicLong seq = new AtomicLong();
        TaskHandler.PerRow handler = (row, ctx) -> table.recordEffect(row, ctx, seq.incrementAndGet());
        ScanEngine engine = new ScanEngine(
                        List.of(new ScanEngine.ScanTask(task, handler)),
                        new JdbcTaskStore(dataSource),
                        coordinator,
                        settings(node),
                        ScanClock.system(),
                        ScanListener.NONE)
                .wakeThrough(channel);
        LettuceConnectionFactory redisConnection = connection;
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            engine.stop();
                            if (redisConnection != null) {
                                redisConnection.destroy();
                            }
                            dataSource.close();
                        },
                        "wake-node-shutdown"));
        engine.start();
        System.out.println("READY " + node);
        System.out.flush();
        InputStream in = System.in;
        while (in.read() >= 0) {
            // runs until the launching JVM closes the pipe
        }
        System.exit(0);
    }
}
