package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.task.Match;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two tasks on one table, {@code vip} (biz_type 3) and {@code normal} (biz_type 4), with their own
 * intervals, page sizes and workers, in one engine: each processes exactly its own rows, retries
 * included, and rows of a kind no task matches (5) stay untouched. Checked from the database.
 */
@ServerTests
class SeveralTasksOnOneTableTests {

    static final int SHARDS = 4;
    static final int ROWS = 300;

    record Kind(String task, int bizType, int workers) {}

    static final Kind VIP = new Kind("vip", 3, 4);
    static final Kind NORMAL = new Kind("normal", 4, 1);

    /** Handler calls in flight, and the most seen at once, per task. */
    final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();

    final Map<String, AtomicInteger> mostInFlight = new ConcurrentHashMap<>();

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb", "h2"})
    void eachTaskProcessesExactlyItsOwnRows(String database) {
        DataSource dataSource =
                switch (database) {
                    case "postgresql" -> TestServers.postgresDatabase("several_tasks");
                    case "mariadb" -> TestServers.mariadbDatabase("several_tasks");
                    default -> TestServers.h2("several_tasks");
                };
        OrderTable table = new OrderTable(dataSource).recreate(SHARDS, false).coordinationTables();
        table.jdbc().execute("ALTER TABLE tb_order ADD COLUMN biz_type SMALLINT");
        table.jdbc().execute("DROP TABLE IF EXISTS match_call");
        table.jdbc().execute("CREATE TABLE match_call (task VARCHAR(16) NOT NULL, order_id BIGINT NOT NULL)");
        table.insert(ROWS, 1000, Instant.now());
        table.jdbc().execute("UPDATE tb_order SET biz_type = 3 + MOD(order_id, 3)");

        TaskDefinition vip = task(VIP)
                .tiers(List.of(Tier.of("0", Duration.ofMillis(200)), Tier.of("1-3", Duration.ofMillis(300))))
                .pageSize(20)
                .build();
        TaskDefinition normal = task(NORMAL)
                .tiers(List.of(Tier.of("0", Duration.ofSeconds(1)), Tier.of("1-3", Duration.ofMillis(500))))
                .pageSize(7)
                .build();
        // each task's index, as its startup check asks for it (tasks matching one column share it on MariaDB and H2)
        new JdbcTaskStore(dataSource).inspect(vip).indexStatements().forEach(table.jdbc()::execute);
        new JdbcTaskStore(dataSource)
                .inspect(normal).indexStatements().stream()
                        .filter(s -> s.startsWith("CREATE INDEX"))
                        .forEach(table.jdbc()::execute);

        ScanEngine engine = new ScanEngine(
                List.of(new ScanEngine.ScanTask(vip, handler(table)), new ScanEngine.ScanTask(normal, handler(table))),
                new JdbcTaskStore(dataSource),
                new JdbcShardCoordinator(dataSource),
                new EngineSettings(
                        "node-a", Engines.FAST_TTL, Engines.FAST_RENEW, Engines.FAST_TTL, Duration.ofSeconds(10)),
                ScanClock.system(),
                ScanListener.NONE);
        try {
            engine.start();
            await().atMost(TestTime.scaled(Duration.ofSeconds(60)))
                    .until(() -> table.count("status = 1 AND biz_type IN (3, 4)") == 2 * ROWS / 3);
        } finally {
            engine.stop();
        }

        // every call of a task was for a row of its kind, and each of its rows was called
        assertThat(table.jdbc()
                        .queryForList(
                                "SELECT c.task, o.biz_type, COUNT(DISTINCT c.order_id) AS orders, COUNT(*) AS calls"
                                        + " FROM match_call c JOIN tb_order o ON o.order_id = c.order_id"
                                        + " GROUP BY c.task, o.biz_type"))
                .extracting(
                        r -> value(r, "task"),
                        r -> ((Number) value(r, "biz_type")).intValue(),
                        r -> ((Number) value(r, "orders")).intValue(),
                        r -> ((Number) value(r, "calls")).intValue())
                .containsExactlyInAnyOrder(
                        // rows whose id ends in 0 failed once and ran again
                        tuple("vip", 3, ROWS / 3, ROWS / 3 + ROWS / 30),
                        tuple("normal", 4, ROWS / 3, ROWS / 3 + ROWS / 30));
        assertThat(table.count("biz_type IN (3, 4) AND (status <> 1 OR retry_count <> (CASE WHEN MOD(order_id, 10) = 0"
                        + " THEN 1 ELSE 0 END))"))
                .isZero();
        assertThat(table.count("biz_type = 5 AND status = 0 AND retry_count = 0"))
                .isEqualTo(ROWS / 3);
        assertThat(mostInFlight.get("vip").get()).isBetween(1, VIP.workers());
        assertThat(mostInFlight.get("normal").get()).isEqualTo(NORMAL.workers());
    }

    static TaskDefinition.Builder task(Kind kind) {
        return TaskDefinition.builder(kind.task())
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS)
                .workers(kind.workers())
                .match(List.of(Match.of("biz_type", kind.bizType())));
    }

    /** Records each call; the first call of a row whose id ends in 0 fails. */
    TaskHandler.PerRow handler(OrderTable table) {
        return (row, ctx) -> {
            String task = ctx.task();
            int now = inFlight.computeIfAbsent(task, t -> new AtomicInteger()).incrementAndGet();
            mostInFlight.computeIfAbsent(task, t -> new AtomicInteger()).accumulateAndGet(now, Math::max);
            try {
                table.jdbc().update("INSERT INTO match_call (task, order_id) VALUES (?, ?)", task, row.id());
                if (row.id() % 10 == 0 && row.retries() == 0) {
                    throw new IllegalStateException("first try of " + row.id() + " fails");
                }
                return Outcome.done();
            } finally {
                inFlight.get(task).decrementAndGet();
            }
        };
    }

    private static Object value(Map<String, Object> row, String column) {
        return row.entrySet().stream()
                .filter(e -> e.getKey().equalsIgnoreCase(column))
                .findFirst()
                .orElseThrow()
                .getValue();
    }
}
