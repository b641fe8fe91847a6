package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.TaskDefinition;
import io.shardscan.core.Tier;
import io.shardscan.testsupport.TestServers;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class PostgresTaskStoreTests extends TaskStoreContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.postgresDatabase("task_store");
    }

    @Test
    void aTierOfFailedRowsReadsOnlyTheIndexOfFailedRows() throws SQLException {
        TaskSql sql = TaskSql.of(task, names(), SqlDialect.detect(dataSource()));
        assertThat(plan(sql.fetch().sql(0, 0), false)).contains("tb_order_scan_idx");
        assertThat(plan(sql.fetch().sql(1, 5), true)).contains("tb_order_retry_idx");
        assertThat(plan(sql.fetch().sql(6, Integer.MAX_VALUE), true)).contains("tb_order_retry_idx");
    }

    @Test
    void indexCheckAsksForTheIndexOfFailedRowsWhenTheTaskRetries() {
        table.jdbc().execute("DROP INDEX tb_order_retry_idx");
        JdbcTaskStore fresh = new JdbcTaskStore(dataSource());
        assertThat(fresh.inspect(task).indexPresent()).isFalse();
        assertThat(fresh.inspect(task).indexStatements()).anySatisfy(statement -> assertThat(statement)
                .startsWith("CREATE INDEX tb_order_retry_idx ON tb_order (mod(user_id, 4), order_id)")
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

    private TableNames names() {
        return new TableInspector(dataSource(), SqlDialect.detect(dataSource()))
                .inspect(task)
                .names();
    }

    /** The plan of a fetch with sequential scans off, as on a table too large for them. */
    private String plan(String fetch, boolean takesDueBound) throws SQLException {
        try (Connection connection = dataSource().getConnection()) {
            connection.createStatement().execute("SET enable_seqscan = off");
            try (PreparedStatement explain = connection.prepareStatement("EXPLAIN " + fetch)) {
                int index = 1;
                explain.setInt(index++, 1);
                if (takesDueBound) {
                    explain.setTimestamp(index++, Timestamp.from(T0));
                }
                explain.setLong(index++, Long.MIN_VALUE);
                explain.setInt(index, 100);
                StringBuilder plan = new StringBuilder();
                try (ResultSet rs = explain.executeQuery()) {
                    while (rs.next()) {
                        plan.append(rs.getString(1)).append('\n');
                    }
                }
                return plan.toString();
            } finally {
                connection.createStatement().execute("RESET enable_seqscan");
            }
        }
    }
}
