package io.shardscan.testsupport;

import com.zaxxer.hikari.HikariDataSource;
import io.shardscan.core.EngineSettings;
import io.shardscan.core.InMemoryEndpointBans;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.task.RangeJob;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.jdbc.JdbcRangeCursor;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.redis.RedisRangeCursor;
import java.io.IOException;
import java.io.InputStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One node of a range task in a JVM of its own, for tests that kill or freeze nodes: a {@link ScanEngine}
 * running the {@code run: once} range task {@code taskName} over {@code tb_user} (see {@link UserTable}) on
 * PostgreSQL or MariaDB, its cursor in Redis or the database, with a batch handler that records each page's
 * ids with the node and the range's epoch in {@code notified} in one statement, then waits
 * {@code pageDelayMillis}.
 *
 * <p>Arguments: {@code nodeId jdbcUrl dbUser dbPassword redisHost redisPort taskName rangeSize pageSize
 * stallTimeoutMillis pageDelayMillis [cursor]}, the cursor {@code redis} (the default) or {@code jdbc}. Leases (range heartbeats) live 6 s, renewed every 2 s, the
 * documented defaults. Prints {@code READY <nodeId>} once started; SIGTERM or the end of standard input
 * stops it gracefully, SIGKILL as a crash would.
 */
public final class RangeNodeMain {

    private RangeNodeMain() {}

    public static void main(String[] args) throws IOException {
        String node = args[0];
        JdbcEndpoint database = new JdbcEndpoint(args[1], args[2], args[3]);
        LettuceConnectionFactory redis =
                RedisConnections.open(args[4], Integer.parseInt(args[5]), Duration.ofSeconds(1));
        String taskName = args[6];
        long rangeSize = Long.parseLong(args[7]);
        int pageSize = Integer.parseInt(args[8]);
        Duration stallTimeout = Duration.ofMillis(Long.parseLong(args[9]));
        long pageDelayNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[10]));
        boolean jdbcCursor = args.length > 11 && args[11].equals("jdbc");

        HikariDataSource dataSource = database.dataSource();
        RangeTask task = new RangeTask(
                TaskDefinition.builder(taskName)
                        .table("tb_user")
                        .idColumn("user_id")
                        .pageSize(pageSize)
                        .workers(2)
                        .build(),
                rangeSize,
                stallTimeout,
                RunMode.ONCE);
        TaskHandler.Batch handler = (rows, ctx) -> {
            // one multi-row INSERT, which PostgreSQL and MariaDB both take
            try (Connection connection = dataSource.getConnection();
                    PreparedStatement insert =
                            connection.prepareStatement("INSERT INTO notified (user_id, node, epoch) VALUES "
                                    + String.join(", ", java.util.Collections.nCopies(rows.size(), "(?, ?, ?)")))) {
                int i = 0;
                for (var row : rows) {
                    insert.setLong(++i, row.id());
                    insert.setString(++i, node);
                    insert.setLong(++i, ctx.epoch());
                }
                insert.executeUpdate();
            }
            java.util.concurrent.locks.LockSupport.parkNanos(pageDelayNanos);
            return null;
        };
        EngineSettings settings = new EngineSettings(
                node, Duration.ofSeconds(6), Duration.ofSeconds(2), Duration.ofSeconds(6), Duration.ofSeconds(10));
        ScanEngine engine = new ScanEngine(
                List.of(),
                new JdbcTaskStore(dataSource),
                new JdbcShardCoordinator(dataSource),
                settings,
                ScanClock.system(),
                ScanListener.NONE,
                new InMemoryEndpointBans(ScanClock.system()),
                List.of(new RangeJob(task, handler)),
                Engines.rangeStores(
                        dataSource,
                        jdbcCursor
                                ? new JdbcRangeCursor(dataSource, settings.statementTimeout())
                                : new RedisRangeCursor(redis),
                        settings.statementTimeout()));
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            engine.stop();
                            redis.destroy();
                            dataSource.close();
                        },
                        "range-node-shutdown"));
        engine.start();
        System.out.println("READY " + node);
        System.out.flush();
        InputStream in = System.in;
        while (in.read() >= 0) {
            // ignore input
        }
        System.out.println(Instant.now() + " " + node + " standard input closed, exiting");
        System.exit(0);
    }
}
