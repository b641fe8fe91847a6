package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.spi.BacklogCounts;
import io.shardscan.core.spi.FailureGroup;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.Tables;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.jdbc.SchemaDdl;
import io.shardscan.jdbc.SqlDialect;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.PreparedStatements;
import io.shardscan.testsupport.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * One task over six tables in two databases (a sharded task, {@link Tables}): tables 0–2 in database a,
 * 3–5 in database b, two shards per table, twelve logical shards. Every row of every table runs once across
 * two nodes; each shard's fence lives in its own table's database; the idle probe asks each database's idle
 * tables in one statement; a transactional handler's own statements commit or roll back with its row, on the
 * row's database; a failure group names the tables that hold its rows. One subclass per database.
 */
abstract class ShardedTablesContractTests {

    static final int TABLES = 6;
    static final int PER_TABLE = 2;
    static final int ROWS = 150;

    @RegisterExtension
    final Engines engines = new Engines();

    PreparedStatements a;
    PreparedStatements b;
    TaskDefinition task;

    abstract DataSource dataSource(String database);

    @BeforeEach
    void setUp() {
        a = new PreparedStatements(dataSource("sharded_a"));
        b = new PreparedStatements(dataSource("sharded_b"));
        new OrderTable(a.dataSource()).coordinationTables();
        new OrderTable(b.dataSource()).coordinationTables();
        List<Tables.Table> tables = new ArrayList<>();
        for (int i = 0; i < TABLES; i++) {
            tables.add(new Tables.Table("tb_order_" + i, i < 3 ? "a" : "b"));
        }
        task = TaskDefinition.builder(
                        "sharded-" + getClass().getSimpleName().toLowerCase().substring(0, 5))
                .tables(tables)
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(PER_TABLE)
                .pageSize(20)
                .tiers(List.of(Tier.of("0", Duration.ofMillis(200)), Tier.of("1-2", Duration.ofMillis(200))))
                .build();
        for (int i = 0; i < TABLES; i++) {
            JdbcTemplate jdbc = jdbc(i);
            SqlDialect dialect = SqlDialect.detect(jdbc.getDataSource());
            jdbc.execute("DROP TABLE IF EXISTS tb_order_" + i);
            jdbc.execute("CREATE TABLE tb_order_" + i + " (order_id BIGINT PRIMARY KEY, user_id BIGINT NOT NULL,"
                    + " status SMALLINT NOT NULL DEFAULT 0, retry_count INT NOT NULL DEFAULT 0,"
                    + " updated_at " + dialect.timestampType() + " NOT NULL, last_error VARCHAR(512))");
            SchemaDdl.scanIndexStatements(dialect, task.part(i)).forEach(jdbc::execute);
        }
        for (JdbcTemplate jdbc : List.of(new JdbcTemplate(a.dataSource()), new JdbcTemplate(b.dataSource()))) {
            jdbc.execute("DROP TABLE IF EXISTS effect");
            jdbc.execute("CREATE TABLE effect (tbl VARCHAR(32) NOT NULL, order_id BIGINT NOT NULL,"
                    + " user_id BIGINT NOT NULL, shard INT NOT NULL, epoch BIGINT NOT NULL)");
        }
    }

    JdbcTemplate jdbc(int table) {
        return new JdbcTemplate(table < 3 ? a.dataSource() : b.dataSource());
    }

    JdbcTemplate jdbcOf(String table) {
        return jdbc(Integer.parseInt(table.substring(table.lastIndexOf('_') + 1)));
    }

    /** Rows 1..ROWS in every table, user {@code id % 7}, each table's ids its own (the same ids in every table). */
    void insert() {
        for (int i = 0; i < TABLES; i++) {
            List<Object[]> rows = new ArrayList<>();
            for (long id = 1; id <= ROWS; id++) {
                rows.add(new Object[] {id, id % 7, OrderTable.utc(Instant.now())});
            }
            jdbc(i).batchUpdate(
                            "INSERT INTO tb_order_" + i + " (order_id, user_id, updated_at) VALUES (?, ?, ?)", rows);
        }
    }

    ShardedTablesStore store() {
        TaskStore home = new JdbcTaskStore(a.dataSource());
        TaskStore other = new JdbcTaskStore(b.dataSource());
        return ShardedTablesStore.of(task, home, source -> source.equals("a") ? home : other);
    }

    ScanEngine node(String name, TaskHandler handler, boolean transactional) {
        return engines.start(
                name,
                new JdbcTaskStore(a.dataSource()),
                new JdbcShardCoordinator(a.dataSource()),
                new ScanEngine.ScanTask(task, handler, transactional).withStore(store()),
                ScanClock.system(),
                ScanListener.NONE,
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
    }

    /** Records the row in its own table's database, with the shard and epoch it ran under. */
    Outcome record(io.shardscan.core.task.Row row, io.shardscan.core.task.ScanContext ctx) {
        jdbcOf(ctx.table())
                .update(
                        "INSERT INTO effect (tbl, order_id, user_id, shard, epoch) VALUES (?, ?, ?, ?, ?)",
                        ctx.table(),
                        row.id(),
                        row.shardKey(),
                        ctx.shard(),
                        ctx.epoch());
        return Outcome.done();
    }

    int effects(String where) {
        return new JdbcTemplate(a.dataSource())
                        .queryForObject("SELECT COUNT(*) FROM effect WHERE " + where, Integer.class)
                + new JdbcTemplate(b.dataSource())
                        .queryForObject("SELECT COUNT(*) FROM effect WHERE " + where, Integer.class);
    }

    int done() {
        return IntStream.range(0, TABLES)
                .map(i -> jdbc(i).queryForObject(
                                "SELECT COUNT(*) FROM tb_order_" + i + " WHERE status = 1", Integer.class))
                .sum();
    }

    @Test
    void everyRowOfEveryTableRunsOnceOnTwoNodesWithEachShardsFenceInItsTablesDatabase() {
        insert();
        jdbc(5).update("UPDATE tb_order_5 SET status = 2 WHERE order_id <= 3");
        Map<String, BacklogCounts> before = store().admin().countBacklogByTable(task);
        assertThat(before.get("tb_order_4").pending()).singleElement().satisfies(group -> assertThat(group.count())
                .isEqualTo(ROWS));
        assertThat(before.get("tb_order_5").dead()).isEqualTo(3);
        assertThat(store().admin().countBacklog(task).dead()).isEqualTo(3);
        jdbc(5).update("UPDATE tb_order_5 SET status = 0 WHERE order_id <= 3");
        TaskHandler handler = (TaskHandler.PerRow) this::record;
        node("node-a", handler, false);
        node("node-b", handler, false);

        await().atMost(TestTime.scaled(Duration.ofSeconds(60))).until(() -> done() == TABLES * ROWS);
        assertThat(effects("1 = 1")).isEqualTo(TABLES * ROWS);
        for (int i = 0; i < TABLES; i++) {
            // each row ran in its own table's logical shard: table i holds shards 2i and 2i + 1, by user mod 2
            assertThat(jdbc(i).queryForObject(
                                    "SELECT COUNT(*) FROM effect WHERE tbl = ? AND shard <> ? + MOD(user_id, 2)",
                                    Integer.class,
                                    "tb_order_" + i,
                                    i * PER_TABLE))
                    .isZero();
            assertThat(jdbc(i).queryForObject(
                                    "SELECT COUNT(DISTINCT order_id) FROM effect WHERE tbl = ?",
                                    Integer.class,
                                    "tb_order_" + i))
                    .isEqualTo(ROWS);
        }
        // the fences of tables 0-2 (shards 0-5) in a, of tables 3-5 (shards 6-11) in b
        assertThat(new JdbcTemplate(a.dataSource())
                        .queryForList(
                                "SELECT shard FROM scan_fence WHERE task = ? ORDER BY shard",
                                Integer.class,
                                task.name()))
                .containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(new JdbcTemplate(b.dataSource())
                        .queryForList(
                                "SELECT shard FROM scan_fence WHERE task = ? ORDER BY shard",
                                Integer.class,
                                task.name()))
                .containsExactly(6, 7, 8, 9, 10, 11);
        BacklogCounts backlog = store().admin().countBacklog(task);
        assertThat(backlog.pending()).isEmpty();
        assertThat(store().admin().countBacklogByTable(task))
                .containsOnlyKeys("tb_order_0", "tb_order_1", "tb_order_2", "tb_order_3", "tb_order_4", "tb_order_5");
    }

    @Test
    void aFailureGroupNamesTheTablesThatHoldItsRowsAndItsLowestIdsFirst() {
        // one error in a table of each database: ids 10-12 in tb_order_1 (a), 1-5 in tb_order_4 (b)
        deadRows(1, List.of(10L, 11L, 12L), "order %d not found");
        deadRows(4, List.of(1L, 2L, 3L, 4L, 5L), "order %d not found");
        deadRows(2, List.of(7L), "connection refused");

        List<FailureGroup> groups = store().admin().failureGroups(task, true, 0, 10, 3);

        assertThat(groups).extracting(FailureGroup::error).containsExactly("order # not found", "connection refused");
        FailureGroup notFound = groups.get(0);
        assertThat(notFound.rows()).isEqualTo(8);
        assertThat(notFound.tables())
                .containsExactly(
                        new FailureGroup.TableRows("tb_order_4", 5), new FailureGroup.TableRows("tb_order_1", 3));
        // the lowest of both tables' ids, not the first table's
        assertThat(notFound.exampleIds()).isEqualTo(List.of(1L, 2L, 3L));
        assertThat(groups.get(1).tables()).containsExactly(new FailureGroup.TableRows("tb_order_2", 1));
    }

    private void deadRows(int table, List<Long> ids, String error) {
        for (long id : ids) {
            jdbc(table)
                    .update(
                            "INSERT INTO tb_order_" + table + " (order_id, user_id, status, retry_count, updated_at,"
                                    + " last_error) VALUES (?, ?, 2, 3, ?, ?)",
                            id,
                            id % 7,
                            OrderTable.utc(Instant.now()),
                            error.formatted(id));
        }
    }

    @Test
    void anIdleTaskAsksEachDatabaseWithOneStatementForAllItsTables() {
        TaskHandler handler = (TaskHandler.PerRow) this::record;
        ScanEngine node = node("node-a", handler, false);
        await().atMost(TestTime.scaled(Duration.ofSeconds(30)))
                .until(() -> node.task(task.name()).ownedShards().size() == TABLES * PER_TABLE);
        // once every shard's first fetch came back empty, every probe asks all of them; a probe before
        // that asks only the shards already idle
        await().atMost(TestTime.scaled(Duration.ofSeconds(30)))
                .until(() -> probes(a).stream().anyMatch(probe -> namesAll(probe, 0, 1, 2))
                        && probes(b).stream().anyMatch(probe -> namesAll(probe, 3, 4, 5)));
        a.clear();
        b.clear();
        await().atMost(TestTime.scaled(Duration.ofSeconds(30)))
                .until(() -> probes(b).size() >= 3 && probes(a).size() >= 3);
        // every probe of b names b's three tables at once, never a's; and a's likewise
        assertThat(probes(b)).allSatisfy(probe -> assertThat(probe)
                .contains("tb_order_3", "tb_order_4", "tb_order_5")
                .doesNotContain("tb_order_0", "tb_order_1", "tb_order_2"));
        assertThat(probes(a)).allSatisfy(probe -> assertThat(probe)
                .contains("tb_order_0", "tb_order_1", "tb_order_2")
                .doesNotContain("tb_order_3"));
        // and no table is fetched on its own while all are idle
        assertThat(b.prepared())
                .noneMatch(sql -> sql.contains("tb_order_") && !sql.contains("scan_probe") && sql.startsWith("SELECT"));

        // a row in one table is found by the next probe and runs
        jdbc(4).update(
                        "INSERT INTO tb_order_4 (order_id, user_id, updated_at) VALUES (1, 1, ?)",
                        OrderTable.utc(Instant.now()));
        await().atMost(TestTime.scaled(Duration.ofSeconds(30))).until(() -> effects("tbl = 'tb_order_4'") == 1);
    }

    private static boolean namesAll(String probe, int... tables) {
        return java.util.Arrays.stream(tables).allMatch(table -> probe.contains("tb_order_" + table));
    }

    private static List<String> probes(PreparedStatements data) {
        return data.prepared().stream()
                .filter(sql -> sql.contains("scan_probe"))
                .toList();
    }

    @Test
    void aTransactionalHandlersOwnStatementsCommitWithItsRowOnTheRowsDatabase() {
        insert();
        TaskHandler handler = (TaskHandler.PerRow) (row, ctx) -> {
            record(row, ctx);
            if (row.id() % 10 == 0) {
                throw new IllegalStateException("refused after its insert");
            }
            return Outcome.done();
        };
        node("node-a", handler, true);

        await().atMost(TestTime.scaled(Duration.ofSeconds(60))).until(() -> done() == TABLES * ROWS * 9 / 10);
        // the failed rows' inserts rolled back with them in b too: the transaction was b's own
        assertThat(effects("MOD(order_id, 10) = 0")).isZero();
        assertThat(effects("1 = 1")).isEqualTo(TABLES * ROWS * 9 / 10);
        // and they were failed, never done (in a retry tier, or dead after the last)
        assertThat(jdbc(4).queryForObject(
                                "SELECT COUNT(*) FROM tb_order_4 WHERE retry_count > 0 AND status <> 1", Integer.class))
                .isEqualTo(ROWS / 10);
    }
}
