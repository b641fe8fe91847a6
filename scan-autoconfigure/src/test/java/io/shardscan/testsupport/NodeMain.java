package io.shardscan.testsupport;

import com.zaxxer.hikari.HikariDataSource;
import io.shardscan.core.EngineSettings;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.redis.RedisShardCoordinator;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * One Shardscan node in a JVM of its own, for tests that kill or freeze nodes: a {@link ScanEngine} with the
 * documented default lease settings, a {@link JdbcTaskStore} and a {@link RedisShardCoordinator}, running
 * the task {@code order-sms} on {@code tb_order} with a handler that records each call in {@code effect}
 * (see {@link OrderTable}).
 *
 * <p>Arguments: {@code nodeId jdbcUrl dbUser dbPassword redisHost redisPort [taskName [handlerDelayMillis
 * [pageSize]]]}; the handler delay defaults to 2 ms, the page size to the task's default.
 * Prints {@code READY <nodeId>} once the engine started and {@code <instant> <nodeId> claimed shard <n>
 * epoch <e>} at each claim, then runs until it is killed. SIGTERM (and
 * the end of standard input, e.g. when the launching JVM dies) stops the engine gracefully through a
 * shutdown hook; SIGKILL skips it, as a crash would.
 */
public final class NodeMain {

    private NodeMain() {}

    public static void main(String[] args) throws IOException {
        if (args.length < 6) {
            System.err.println("usage: NodeMain nodeId jdbcUrl dbUser dbPassword redisHost redisPort"
                    + " [taskName [handlerDelayMillis [pageSize]]]");
            System.exit(2);
        }
        String node = args[0];
        JdbcEndpoint database = new JdbcEndpoint(args[1], args[2], args[3]);
        String redisHost = args[4];
        int redisPort = Integer.parseInt(args[5]);
        String taskName = args.length > 6 ? args[6] : "order-sms";
        long delayNanos = TimeUnit.MILLISECONDS.toNanos(args.length > 7 ? Long.parseLong(args[7]) : 2);
        TaskDefinition.Builder builder = TaskDefinition.builder(taskName);
        if (args.length > 8) {
            builder.pageSize(Integer.parseInt(args[8]));
        }

        HikariDataSource dataSource = database.dataSource();
        LettuceConnectionFactory redis = RedisConnections.open(redisHost, redisPort, Duration.ofSeconds(1));

        TaskDefinition task = builder.table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .build();
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        AtomicLong seq = new AtomicLong();
        TaskHandler.PerRow handler = (row, ctx) -> {
            jdbc.update(
                    "INSERT INTO effect (order_id, user_id, node, epoch, seq) VALUES (?, ?, ?, ?, ?)",
                    row.id(),
                    row.shardKey(),
                    node,
                    ctx.epoch(),
                    seq.incrementAndGet());
            LockSupport.parkNanos(delayNanos);
            return null;
        };
        EngineSettings settings = new EngineSettings(
                node, Duration.ofSeconds(6), Duration.ofSeconds(2), Duration.ofSeconds(6), Duration.ofSeconds(10));
        ScanEngine engine = new ScanEngine(
                List.of(new ScanEngine.ScanTask(task, handler)),
                new JdbcTaskStore(dataSource),
                new RedisShardCoordinator(redis),
                settings,
                ScanClock.system(),
                new ScanListener() {
                    @Override
                    public void shardClaimed(String task, int shard, long epoch) {
                        // when this node's own thread claimed it, for a test that times a failover
                        log(node, "claimed shard " + shard + " epoch " + epoch);
                    }
                });

        serve(node, engine, () -> {
            redis.destroy();
            dataSource.close();
        });
    }

    /**
     * Starts {@code engine}, prints {@code READY <node>} and runs until killed: SIGTERM (and the end of
     * standard input, the launching JVM's pipe) stops the engine through a shutdown hook, then {@code close}
     * runs; SIGKILL skips both, as a crash would.
     */
    static void serve(String node, ScanEngine engine, Runnable close) throws IOException {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            log(node, "stopping");
                            engine.stop();
                            close.run();
                            log(node, "stopped");
                        },
                        "node-main-shutdown"));
        engine.start();
        System.out.println("READY " + node);
        System.out.flush();

        // Runs until killed. Standard input is the launching JVM's pipe: its end means that JVM is
        // gone, and this node must not outlive it.
        InputStream in = System.in;
        while (in.read() >= 0) {
            // ignore input
        }
        log(node, "standard input closed, exiting");
        System.exit(0);
    }

    /** Prints {@code <instant> <node> <message>}, as the tests read a node's claims. */
    static void log(String node, String message) {
        System.out.println(Instant.now() + " " + node + " " + message);
        System.out.flush();
    }
}
