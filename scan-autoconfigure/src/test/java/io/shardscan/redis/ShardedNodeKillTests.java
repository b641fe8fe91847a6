package io.shardscan.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.task.TaskDefinition;
import io.shardscan.jdbc.SchemaDdl;
import io.shardscan.jdbc.SqlDialect;
import io.shardscan.testsupport.ChaosTests;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.NodeProcesses;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ShardedNodeMain;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.TestTime;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A sharded task (8 tables in two PostgreSQL databases, 64 logical shards) on three node JVMs; one is killed
 * with SIGKILL mid-run. Every row of every table is done, none lost; the rows run twice are only those the
 * dead node had in flight; no (shard, epoch) was written by two nodes, in either database.
 */
@ChaosTests
class ShardedNodeKillTests {

    static final int ROWS_PER_TABLE = 2_500;
    static final int SHARDS = ShardedNodeMain.TABLES * ShardedNodeMain.PER_TABLE;
    static final Path LOGS = Path.of("target", "sharded-node-kill");

    final JdbcEndpoint endpointA = TestServers.postgresEndpoint("sharded_kill_a");
    final JdbcEndpoint endpointB = TestServers.postgresEndpoint("sharded_kill_b");
    final DataSource a = TestServers.postgresDatabase("sharded_kill_a");
    final DataSource b = TestServers.postgresDatabase("sharded_kill_b");
    NodeProcesses nodes;

    JdbcTemplate jdbc(int table) {
        return new JdbcTemplate(table < ShardedNodeMain.TABLES / 2 ? a : b);
    }

    @BeforeEach
    void setUp() {
        TaskDefinition task = ShardedNodeMain.task();
        for (DataSource dataSource : List.of(a, b)) {
            new OrderTable(dataSource).coordinationTables();
            JdbcTemplate jdbc = new JdbcTemplate(dataSource);
            jdbc.execute("DROP TABLE IF EXISTS effect");
            jdbc.execute("CREATE TABLE effect (tbl VARCHAR(32) NOT NULL, order_id BIGINT NOT NULL, user_id BIGINT"
                    + " NOT NULL, node VARCHAR(128) NOT NULL, shard INT NOT NULL, epoch BIGINT NOT NULL, seq BIGINT"
                    + " NOT NULL)");
        }
        for (int i = 0; i < ShardedNodeMain.TABLES; i++) {
            JdbcTemplate jdbc = jdbc(i);
            jdbc.execute("DROP TABLE IF EXISTS tb_order_" + i);
            jdbc.execute("CREATE TABLE tb_order_" + i + " (order_id BIGINT PRIMARY KEY, user_id BIGINT NOT NULL,"
                    + " status SMALLINT NOT NULL DEFAULT 0, retry_count INT NOT NULL DEFAULT 0,"
                    + " updated_at TIMESTAMP NOT NULL, last_error VARCHAR(512))");
            SchemaDdl.scanIndexStatements(SqlDialect.detect(jdbc.getDataSource()), task.part(i))
                    .forEach(jdbc::execute);
            List<Object[]> rows = new ArrayList<>();
            for (long id = 1; id <= ROWS_PER_TABLE; id++) {
                rows.add(
                        new Object[] {id, id % 997, OrderTable.utc(Instant.now().minusSeconds(5))});
            }
            jdbc.batchUpdate("INSERT INTO tb_order_" + i + " (order_id, user_id, updated_at) VALUES (?, ?, ?)", rows);
        }
        nodes = new NodeProcesses(ShardedNodeMain.TASK, endpointA, TestServers.redis(), LOGS);
    }

    @AfterEach
    void tearDown() {
        if (nodes != null) {
            nodes.close();
        }
    }

    int done() {
        int done = 0;
        for (int i = 0; i < ShardedNodeMain.TABLES; i++) {
            done += jdbc(i).queryForObject("SELECT COUNT(*) FROM tb_order_" + i + " WHERE status = 1", Integer.class);
        }
        return done;
    }

    int sum(String sql) {
        return new JdbcTemplate(a).queryForObject(sql, Integer.class)
                + new JdbcTemplate(b).queryForObject(sql, Integer.class);
    }

    @Test
    void aKilledNodesShardsMoveAndNoRowOfAnyTableIsLost() {
        for (String node : List.of("node-a", "node-b", "node-c")) {
            nodes.launch(node, ShardedNodeMain.class, List.of(endpointB.url(), "2"));
        }
        nodes.awaitReady();
        nodes.awaitBalanced(SHARDS, 3, Duration.ofSeconds(90));
        await("some progress").pollInterval(Duration.ofMillis(50)).until(() -> done() >= 2_000);

        String victim = "node-b";
        Set<Integer> victimShards = nodes.shardsOf(victim);
        int doneAtKill = done();
        nodes.process(victim).destroyForcibly(); // SIGKILL
        assertThat(doneAtKill).isLessThan(ShardedNodeMain.TABLES * ROWS_PER_TABLE);
        assertThat(victimShards).hasSizeBetween(21, 22);

        await("every row done")
                .atMost(TestTime.scaled(Duration.ofSeconds(90)))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> done() == ShardedNodeMain.TABLES * ROWS_PER_TABLE);
        for (int i = 0; i < ShardedNodeMain.TABLES; i++) {
            assertThat(jdbc(i).queryForObject(
                                    "SELECT COUNT(*) FROM tb_order_" + i + " o WHERE NOT EXISTS (SELECT 1 FROM effect e"
                                            + " WHERE e.tbl = ? AND e.order_id = o.order_id)",
                                    Integer.class,
                                    "tb_order_" + i))
                    .as("rows of tb_order_%d without an effect (lost)", i)
                    .isZero();
        }
        int twice = sum("SELECT COUNT(*) FROM (SELECT tbl, order_id FROM effect GROUP BY tbl, order_id"
                + " HAVING COUNT(*) > 1) d");
        int twiceWithoutVictim = sum("SELECT COUNT(*) FROM (SELECT tbl, order_id FROM effect GROUP BY tbl, order_id"
                + " HAVING COUNT(*) > 1 AND COUNT(CASE WHEN node = '" + victim + "' THEN 1 END) = 0) d");
        System.out.printf("ShardedNodeKillTests: %d rows done at the kill, %d run twice%n", doneAtKill, twice);
        assertThat(twice)
                .as("rows run twice: at most the victim's rows in flight")
                .isLessThanOrEqualTo(8 * 200);
        assertThat(twiceWithoutVictim)
                .as("rows run twice without the victim among their runs")
                .isZero();
        assertThat(sum("SELECT COUNT(*) FROM (SELECT shard, epoch FROM effect GROUP BY shard, epoch"
                        + " HAVING COUNT(DISTINCT node) > 1) d"))
                .as("(shard, epoch) pairs written by more than one node")
                .isZero();
        // each row ran in its own table's shards only
        assertThat(sum("SELECT COUNT(*) FROM effect WHERE shard <> CAST(SUBSTRING(tbl, 10) AS INT) * "
                        + ShardedNodeMain.PER_TABLE + " + MOD(user_id, " + ShardedNodeMain.PER_TABLE + ")"))
                .isZero();
    }
}
