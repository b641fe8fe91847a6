package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.spi.FetchRequest;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

@ServerTests
class PostgresSharedTableStoreTests extends SharedTableStoreContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.postgresDatabase("shared_table");
    }

    @Override
    List<String> expectedIndexStatements() {
        return List.of(
                "CREATE INDEX tb_order_vip_scan_idx ON tb_order (MOD(MOD(user_id, 4) + 4, 4), order_id) WHERE status = 0"
                        + " AND biz_type = 3",
                "CREATE INDEX tb_order_vip_retry_idx ON tb_order (MOD(MOD(user_id, 4) + 4, 4), order_id) WHERE status = 0"
                        + " AND biz_type = 3 AND retry_count > 0");
    }

    @Override
    List<String> expectedIndexStatementsOfASecondTask() {
        return List.of(
                "CREATE INDEX tb_order_normal_scan_idx ON tb_order (MOD(MOD(user_id, 4) + 4, 4), order_id) WHERE status = 0"
                        + " AND biz_type IN (4, 5)",
                "CREATE INDEX tb_order_normal_retry_idx ON tb_order (MOD(MOD(user_id, 4) + 4, 4), order_id) WHERE status = 0"
                        + " AND biz_type IN (4, 5) AND retry_count > 0");
    }

    /**
     * PostgreSQL may run a prepared statement with a generic plan, one made without the values of its
     * parameters (by choice after five executions, always under {@code plan_cache_mode =
     * force_generic_plan}). The statements that select vip's rows still read vip's own partial
     * indexes, since they write the match as a literal from which the planner proves the index's
     * predicate; written as a parameter, the same fetch reads the primary key and filters every row.
     */
    @Test
    void statementsOfATaskReadItsOwnIndexesUnderAGenericPlan() {
        table.recreate(SHARDS, false).insert(40_000, 1000, T0);
        table.jdbc().execute("ALTER TABLE tb_order ADD COLUMN biz_type SMALLINT");
        table.jdbc().execute("UPDATE tb_order SET biz_type = 3 + MOD(order_id / 4, 4)");
        table.jdbc().execute("UPDATE tb_order SET status = 1 WHERE MOD(order_id, 10) <> 0");
        table.jdbc().execute("UPDATE tb_order SET retry_count = 2 WHERE MOD(order_id, 100) = 0");
        for (TaskDefinition task : List.of(task("all"), vip, normal)) {
            new JdbcTaskStore(dataSource()).inspect(task).indexStatements().forEach(table.jdbc()::execute);
        }
        table.jdbc().execute("ANALYZE tb_order");
        TaskSql sql = sql(vip);
        String fresh = sql.fetch().sql(new FetchRequest(1, 0, 0, null, 0, 100));
        String failed = sql.fetch().sql(new FetchRequest(1, 1, 5, Duration.ofSeconds(30), 0, 100));

        assertThat(genericPlan(fresh, "1, 0, 100")).contains("Index Scan using tb_order_vip_scan_idx");
        assertThat(genericPlan(failed, "1, 0, 100")).contains("tb_order_vip_retry_idx");
        assertThat(genericPlan(sql.failedRows(), "1")).contains("tb_order_vip_retry_idx");
        assertThat(genericPlan(sql.countBacklog().sql(0), "")).contains("tb_order_vip_scan_idx");
        assertThat(genericPlan(sql(normal).fetch().sql(new FetchRequest(1, 0, 0, null, 0, 100)), "1, 0, 100"))
                .contains("Index Scan using tb_order_normal_scan_idx");

        assertThat(fresh).contains("\"biz_type\" = 3");
        String bound = fresh.replace("\"biz_type\" = 3", "\"biz_type\" = ?");
        assertThat(genericPlan(bound, "3, 1, 0, 100"))
                .as("with the match as a parameter")
                .doesNotContain("tb_order_vip_scan_idx");
    }

    private TaskSql sql(TaskDefinition task) {
        SqlDialect dialect = SqlDialect.detect(dataSource());
        return TaskSql.of(
                task, new TableInspector(dataSource(), dialect).inspect(task).names(), dialect);
    }

    /** The plan PostgreSQL makes for {@code sql} without its parameters' values, run with {@code arguments}. */
    private String genericPlan(String sql, String arguments) {
        StringBuilder numbered = new StringBuilder();
        int parameter = 0;
        for (char c : sql.toCharArray()) {
            numbered.append(c == '?' ? "$" + ++parameter : String.valueOf(c));
        }
        return table.jdbc().execute((Statement statement) -> {
            statement.execute("SET plan_cache_mode = force_generic_plan");
            try {
                statement.execute("PREPARE scan_plan AS " + numbered);
                StringBuilder plan = new StringBuilder();
                try (ResultSet rs = statement.executeQuery(
                        "EXPLAIN EXECUTE scan_plan" + (arguments.isEmpty() ? "" : "(" + arguments + ")"))) {
                    while (rs.next()) {
                        plan.append(rs.getString(1)).append('\n');
                    }
                }
                return plan.toString();
            } finally {
                statement.execute("DEALLOCATE ALL");
                statement.execute("RESET plan_cache_mode");
            }
        });
    }
}
