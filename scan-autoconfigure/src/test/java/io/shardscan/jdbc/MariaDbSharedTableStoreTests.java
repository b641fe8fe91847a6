package io.shardscan.jdbc;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.util.List;
import javax.sql.DataSource;

@ServerTests
class MariaDbSharedTableStoreTests extends SharedTableStoreContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.mariadbDatabase("shared_table");
    }

    @Override
    List<String> expectedIndexStatements() {
        return List.of(
                "ALTER TABLE tb_order ADD COLUMN scan_shard INT AS (MOD(MOD(user_id, 4) + 4, 4)) STORED",
                "CREATE INDEX tb_order_biz_type_scan_idx ON tb_order (biz_type, status, scan_shard, retry_count,"
                        + " order_id)");
    }

    @Override
    List<String> expectedIndexStatementsOfASecondTask() {
        // normal matches on biz_type too, so vip's index is normal's
        return List.of();
    }
}
