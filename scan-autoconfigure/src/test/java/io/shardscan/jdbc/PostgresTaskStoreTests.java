package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.spi.SchemaReport;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.Tier;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

@ServerTests
class PostgresTaskStoreTests extends TaskStoreContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.postgresDatabase("task_store");
    }

    /**
     * An index left by an earlier configuration under the name the startup check would give the new
     * one (a walk-through changed the shard key): the printed statements drop it first, so that they
     * run as printed instead of failing with "already exists".
     */
    @Test
    void aStaleIndexOfTheSameNameIsDroppedBeforeTheNewOneIsCreated() {
        table.recreate(SHARDS, false);
        table.jdbc().execute("CREATE INDEX tb_order_scan_idx ON tb_order (status)");
        SchemaReport report = new JdbcTaskStore(dataSource()).inspect(task);
        assertThat(report.indexPresent()).isFalse();
        assertThat(report.indexStatements().get(0)).isEqualTo("DROP INDEX IF EXISTS tb_order_scan_idx");
        report.indexStatements().forEach(table.jdbc()::execute);
        assertThat(new JdbcTaskStore(dataSource()).inspect(task).indexPresent()).isTrue();
    }

    @Test
    void aTierOfFailedRowsReadsOnlyTheIndexOfFailedRows() throws SQLException {
        // the shard in the index condition: the fetch spells the index's expression, not a filter after it
        assertThat(explainFetch(0, 0, "SET enable_seqscan = off"))
                .contains("tb_order_scan_idx")
                .containsPattern("Index Cond: .*mod\\(");
        assertThat(explainFetch(1, 5, "SET enable_seqscan = off")).contains("tb_order_retry_idx");
        assertThat(explainFetch(6, Integer.MAX_VALUE, "SET enable_seqscan = off"))
                .contains("tb_order_retry_idx");
    }

    /**
     * 40 000 rows, all done but one in shard 1: the idle probe of two tiers reads each shard's fresh
     * rows through the pending-row index and its failed ones through the index of failed rows, and
     * stops at the first row, so the done rows cost nothing; one branch per shard and tier, no
     * sequential scan, no sort.
     */
    @Test
    void theIdleProbeReadsEachShardThroughThePendingIndexAndStopsAtItsFirstRow() throws SQLException {
        table.recreate(SHARDS, true).insert(40_000, 1000, T0);
        table.jdbc().update("UPDATE tb_order SET status = 1 WHERE order_id <> 5");
        table.jdbc().execute("ANALYZE tb_order");
        String plan = explainProbe("EXPLAIN (ANALYZE, COSTS OFF) ", null);
        assertThat(plan).doesNotContain("Seq Scan").doesNotContain("Sort").doesNotContain("Rows Removed by Filter");
        assertThat(plan.split("Index Scan using tb_order_scan_idx|Index Only Scan using tb_order_scan_idx", -1))
                .as(plan)
                .hasSize(SHARDS + 1);
        assertThat(plan.split("Index Scan using tb_order_retry_idx|Index Only Scan using tb_order_retry_idx", -1))
                .as(plan)
                .hasSize(SHARDS + 1);
        assertThat(plan).as(plan).containsPattern("Append \\(actual time=\\S+ rows=1 ");
    }

    @Test
    void indexCheckAsksForTheIndexOfFailedRowsWhenTheTaskRetries() {
        table.jdbc().execute("DROP INDEX tb_order_retry_idx");
        JdbcTaskStore fresh = new JdbcTaskStore(dataSource());
        assertThat(fresh.inspect(task).indexPresent()).isFalse();
        assertThat(fresh.inspect(task).indexStatements()).anySatisfy(statement -> assertThat(statement)
                .startsWith("CREATE INDEX tb_order_retry_idx ON tb_order (MOD(MOD(user_id, 4) + 4, 4), order_id)")
                .endsWith("WHERE status = 0 AND retry_count > 0"));
        assertThat(fresh.inspect(TaskDefinition.builder("once")
                                .table("tb_order")
                                .idColumn("order_id")
                                .shardKeyColumn("user_id")
                                .shards(SHARDS)
                                .tiers(List.of(new Tier(0, 0, Duration.ofSeconds(3))))
                                .build())
                        .indexPresent())
                .isTrue();
    }

    /**
     * Shard 1 holds 1 000 pending rows, of which only 10 are due; the rest are due tomorrow. The
     * fetch reads the 10 through the due index, bounded by the database's clock in the index
     * condition: no row that is not yet due is read and filtered out.
     */
    @Test
    void aDelayedFetchReadsOnlyDueRowsThroughTheDueIndex() throws SQLException {
        table.recreate(SHARDS, true).withDueAt(SHARDS).insert(4000, 1000, T0);
        table.jdbc().update("UPDATE tb_order SET due_at = LOCALTIMESTAMP + INTERVAL '1 day'");
        table.jdbc().update("UPDATE tb_order SET due_at = LOCALTIMESTAMP - INTERVAL '1 hour' WHERE order_id <= 40");
        table.jdbc().execute("ANALYZE tb_order");
        String plan = explainDelayedFetch(
                delayed(Duration.ofMinutes(15)), "EXPLAIN (ANALYZE, COSTS OFF) ", "SET enable_seqscan = off");
        assertThat(plan)
                .contains("Index Scan using tb_order_due_idx")
                .containsPattern("Index Cond: .*due_at <= ")
                .containsPattern("Index Scan using tb_order_due_idx on tb_order \\(actual time=\\S+ rows=10 ")
                .doesNotContain("Rows Removed by Filter")
                .doesNotContain("Sort");
    }

    @Test
    void aTaskWithoutDueAtColumnFetchesWithTheStatementItHadBefore() {
        SqlDialect dialect = SqlDialect.detect(dataSource());
        TaskSql sql = TaskSql.of(
                task, new TableInspector(dataSource(), dialect).inspect(task).names(), dialect);
        assertThat(sql.fetch().sql(new io.shardscan.core.spi.FetchRequest(1, 0, 0, null, Long.MIN_VALUE, 100)))
                .isEqualTo("SELECT * FROM \"tb_order\" WHERE \"status\" = 0 AND MOD(MOD(\"user_id\", 4) + 4, 4) = ?"
                        + " AND \"retry_count\" = 0 AND \"order_id\" > ? ORDER BY \"order_id\" LIMIT ?");
    }
}
