package io.shardscan.core;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.util.List;
import javax.sql.DataSource;

/** MariaDB's statement that makes the retry column NOT NULL DEFAULT 0 restates its type. */
@ServerTests
class MariaDbUnfetchableRowsTests extends UnfetchableRowsContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.mariadbDatabase("unfetchable_rows");
    }

    @Override
    List<String> nullable() {
        return List.of(
                "ALTER TABLE tb_order MODIFY COLUMN retry_count INT NULL DEFAULT 0",
                "ALTER TABLE tb_order MODIFY COLUMN updated_at DATETIME(3) NULL");
    }
}
