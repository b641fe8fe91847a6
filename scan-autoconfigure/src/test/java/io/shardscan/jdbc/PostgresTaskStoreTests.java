package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.TaskDefinition;
import io.shardscan.core.Tier;
import io.shardscan.testsupport.TestServers;
import java.sql.SQLException;
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
        assertThat(explainFetch(0, 0, "SET enable_seqscan = off")).contains("tb_order_scan_idx");
        assertThat(explainFetch(1, 5, "SET enable_seqscan = off")).contains("tb_order_retry_idx");
        assertThat(explainFetch(6, Integer.MAX_VALUE, "SET enable_seqscan = off"))
                .contains("tb_order_retry_idx");
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
}
