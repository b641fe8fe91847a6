package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.testsupport.TestServers;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class MariaDbTaskStoreTests extends TaskStoreContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.mariadbDatabase("task_store");
    }

    /**
     * MariaDB's plans over the index on (status, scan_shard, retry_count, order_id): the fresh tier
     * reads all four key parts (key length 19) in id order, without a sort; a tier of failed rows
     * also reads through the retry count, so it expects the one failed row, not the shard's 1 000
     * pending ones that an index without retry_count would make it read.
     */
    @Test
    void freshRowsComeInIndexOrderAndFailedOnesThroughTheirRetryRange() throws SQLException {
        table.recreate(SHARDS, true).insert(4000, 1000, T0);
        table.jdbc().execute("ANALYZE TABLE tb_order");
        assertThat(explainFetch(0, 0, null)).contains("tb_order_scan_idx 19 ").doesNotContain("filesort");
        assertThat(explainFetch(1, 5, null)).contains("tb_order_scan_idx 19 null 1 ");
    }
}
