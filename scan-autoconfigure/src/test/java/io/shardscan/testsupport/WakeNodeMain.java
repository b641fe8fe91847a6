package io.shardscan.testsupport;

import com.zaxxer.hikari.HikariDataSource;
import io.shardscan.core.EngineSettings;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.spi.WakeChannel;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.jdbc.PostgresWakeChannel;
import io.shardscan.redis.RedisShardCoordinator;
import io.shardscan.redis.RedisWakeChannel;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One node in a JVM of its own for the wake-up tests: {@link #task(int)} on {@code tb_order} (tier 0
 * every {@link #TIER_INTERVAL}, so only a wake-up picks a new row up soon), coordinated and woken
 * through Redis ({@code redis}) or through the database and PostgreSQL NOTIFY ({@code postgres}); the
 * handler records each call in {@code effect} (see {@link OrderTable}).
 *
 * <p>Arguments: {@code nodeId jdbcUrl dbUser dbPassword redisHost redisPort transport shards}. Prints
 * {@code READY <nodeId>} once started, {@code <instant> <nodeId> claimed shard <n> epoch <e>} at each
 * claim and {@code <instant> <nodeId> passed shard <n> epoch <e>} at the end of each round of tier 0
 * (see {@link #passedSinceClaim}); stops gracefully at SIGTERM or when standard input ends.
 */
public final class WakeNodeMain {

    private static final Pattern CLAIMED = Pattern.compile(".* claimed shard (\\d+) epoch (\\d+)");
    private static final Pattern PASSED = Pattern.compile(".* passed shard (\\d+) epoch (\\d+)");

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

    /**
     * Whether a node's output ({@code log}) shows a tier-0 round of {@code shard} ended under the fence
     * epoch of the node's last claim of it: the node ran its first pass of the shard it holds, so a row
     * inserted now waits for the next poll, or a wake-up. A round that ended before the node printed the
     * claim still counts, as it prints the epoch it held, not the last one it printed.
     */
    public static boolean passedSinceClaim(String log, int shard) {
        Long claimed = null;
        Set<Long> passed = new HashSet<>();
        for (String line : log.lines().toList()) {
            Matcher claim = CLAIMED.matcher(line);
            if (claim.matches() && Integer.parseInt(claim.group(1)) == shard) {
                claimed = Long.parseLong(claim.group(2));
            }
            Matcher pass = PASSED.matcher(line);
            if (pass.matches() && Integer.parseInt(pass.group(1)) == shard) {
                passed.add(Long.parseLong(pass.group(2)));
            }
        }
        return claimed != null && passed.contains(claimed);
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
        AtomicReference<ScanEngine> running = new AtomicReference<>();
        ScanListener passes = new ScanListener() {
            @Override
            public void shardClaimed(String task, int shard, long epoch) {
                log(node, "claimed shard " + shard + " epoch " + epoch);
            }

            @Override
            public Timing roundStarted(String task, int shard, Tier tier) {
                if (tier.minRetries() != 0) {
                    return Timing.NONE;
                }
                // the epoch the round ran under: the shard is held before the claim is printed
                Long epoch = running.get().task(task).ownedShards().get(shard);
                return outcome -> log(node, "passed shard " + shard + " epoch " + epoch);
            }
        };
        ScanEngine engine = new ScanEngine(
                        List.of(new ScanEngine.ScanTask(task, handler)),
                        new JdbcTaskStore(dataSource),
                        coordinator,
                        settings(node),
                        ScanClock.system(),
                        passes)
                .wakeThrough(channel);
        running.set(engine);
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

    private static void log(String node, String message) {
        System.out.println(Instant.now() + " " + node + " " + message);
        System.out.flush();
    }
}
