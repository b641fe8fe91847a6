package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.TaskDefinition;
import io.shardscan.testsupport.TestServers;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class MariaDbArchiveTests extends ArchiveContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.mariadbDatabase("archive");
    }

    /**
     * MariaDB's plan of the batch's select on 40 000 rows, most of them done long ago: a range
     * over the index on (status, scan_shard, updated_at), never the whole table.
     */
    @Test
    void aBatchReadsARangeOfTheIndexOverFinishedRows() {
        table.jdbc().execute("DELETE FROM tb_order");
        table.insert(40_000, 1000, OLD);
        table.jdbc().update("UPDATE tb_order SET status = 1 WHERE order_id % 10 <> 0");
        table.jdbc().update("UPDATE tb_order SET updated_at = ? WHERE order_id % 7 = 0", Timestamp.from(Instant.now()));
        table.jdbc().execute("ANALYZE TABLE tb_order");
        for (boolean includeDead : List.of(false, true)) {
            TaskDefinition task = task("tb_order_archive", includeDead, 500);
            String select = new JdbcTaskStore(dataSource()).archiveSql(task).select();
            List<Map<String, Object>> plan = table.jdbc().queryForList("EXPLAIN " + select, 3, -86_400_000L, 500);
            assertThat(plan).as(plan.toString()).singleElement().satisfies(row -> {
                assertThat(row.get("key")).isEqualTo("tb_order_finished_idx");
                assertThat(row.get("type")).isEqualTo("range");
            });
        }
    }
}
