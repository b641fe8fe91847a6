package io.shardscan.testsupport;

import com.zaxxer.hikari.HikariDataSource;
import io.shardscan.core.EngineSettings;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.ShardedTablesStore;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.task.Tables;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.redis.RedisShardCoordinator;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * One node of a sharded task in a JVM of its own, for {@code ShardedNodeKillTests}: the task
 * {@code sharded-sms} over {@link #TABLES} tables {@code tb_order_0 …}, the first half in the database of
 * {@code jdbcUrl}, the second in {@code secondJdbcUrl} (same user and password), {@link #PER_TABLE} shards
 * per table, a {@link RedisShardCoordinator}; the handler records each call in its row's database's
 * {@code effect} table (table, id, user, node, logical shard, epoch, sequence).
 *
 * <p>Arguments: {@code nodeId jdbcUrl dbUser dbPassword redisHost redisPort secondJdbcUrl handlerDelayMillis};
 * prints {@code READY <nodeId>} and each claim as {@link NodeMain} does, and runs until killed.
 */
public final class ShardedNodeMain {

    public static final String TASK = "sharded-sms";
    public static final int TABLES = 8;
    public static final int PER_TABLE = 8;

    private ShardedNodeMain() {}

    /** The task every node runs: tables 0–3 in source {@code a}, 4–7 in {@code b}. */
    public static TaskDefinition task() {
        List<Tables.Table> tables = new ArrayList<>();
        for (int i = 0; i < TABLES; i++) {
            tables.add(new Tables.Table("tb_order_" + i, i < TABLES / 2 ? "a" : "b"));
        }
        return TaskDefinition.builder(TASK)
                .tables(tables)
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(PER_TABLE)
                .build();
    }

    public static void main(String[] args) throws IOException {
        String node = args[0];
        HikariDataSource a = new JdbcEndpoint(args[1], args[2], args[3]).dataSource();
        HikariDataSource b = new JdbcEndpoint(args[6], args[2], args[3]).dataSource();
        LettuceConnectionFactory redis =
                RedisConnections.open(args[4], Integer.parseInt(args[5]), Duration.ofSeconds(1));
        long delayNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[7]));
        TaskDefinition task = task();
        TaskStore home = new JdbcTaskStore(a);
        TaskStore other = new JdbcTaskStore(b);
        AtomicLong seq = new AtomicLong();
        TaskHandler.PerRow handler = (row, ctx) -> {
            int table = Integer.parseInt(ctx.table().substring("tb_order_".length()));
            new JdbcTemplate(table < TABLES / 2 ? a : b)
                    .update(
                            "INSERT INTO effect (tbl, order_id, user_id, node, shard, epoch, seq)"
                                    + " VALUES (?, ?, ?, ?, ?, ?, ?)",
                            ctx.table(),
                            row.id(),
                            row.shardKey(),
                            node,
                            ctx.shard(),
                            ctx.epoch(),
                            seq.incrementAndGet());
            LockSupport.parkNanos(delayNanos);
            return null;
        };
        EngineSettings settings = new EngineSettings(
                node, Duration.ofSeconds(6), Duration.ofSeconds(2), Duration.ofSeconds(6), Duration.ofSeconds(10));
        ScanEngine engine = new ScanEngine(
                List.of(new ScanEngine.ScanTask(task, handler)
                        .withStore(ShardedTablesStore.of(task, home, source -> source.equals("a") ? home : other))),
                home,
                new RedisShardCoordinator(redis),
                settings,
                ScanClock.system(),
                new ScanListener() {
                    @Override
                    public void shardClaimed(String task, int shard, long epoch) {
                        NodeMain.log(node, "claimed shard " + shard + " epoch " + epoch);
                    }
                });
        NodeMain.serve(node, engine, () -> {
            redis.destroy();
            a.close();
            b.close();
        });
    }
}
