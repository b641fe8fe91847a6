package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.task.TaskDefinition;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

@ServerTests
class PostgresArchiveTests extends ArchiveContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.postgresDatabase("archive");
    }

    /**
     * The batch's select reads one shard's old finished rows through the partial index over
     * finished rows, for done rows alone and for done and dead ones: 200 000 finished rows and
     * 10 000 pending ones over 64 shards, planned by the planner's own statistics.
     */
    @Test
    void aBatchReadsThroughThePartialIndexOverFinishedRows() {
        table.jdbc().execute("DELETE FROM tb_order");
        table.jdbc()
                .execute("INSERT INTO tb_order (order_id, user_id, status, updated_at) SELECT g, g % 1000,"
                        + " CASE WHEN g % 20 = 0 THEN 2 ELSE 1 END, LOCALTIMESTAMP - interval '10 days' + g * interval"
                        + " '1 second' FROM generate_series(1, 200000) g");
        table.jdbc()
                .execute("INSERT INTO tb_order (order_id, user_id, status, updated_at) SELECT g, g % 1000, 0,"
                        + " LOCALTIMESTAMP - interval '10 days' FROM generate_series(200001, 210000) g");
        table.jdbc().execute("ANALYZE tb_order");
        for (boolean includeDead : List.of(false, true)) {
            TaskDefinition task = task("tb_order_archive", includeDead, 500);
            String select = new JdbcTaskStore(dataSource()).archiveSql(task).select();
            String plan = String.join("\n", table.jdbc().queryForList("EXPLAIN " + select, String.class, 3, 500));
            assertThat(plan).as(plan).contains("tb_order_finished_idx").doesNotContain("Seq Scan");
        }
    }
}
