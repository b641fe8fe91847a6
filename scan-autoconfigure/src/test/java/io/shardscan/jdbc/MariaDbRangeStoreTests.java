package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

@ServerTests
class MariaDbRangeStoreTests extends RangeStoreContractTests {

    @Override
    protected DataSource createDataSource() {
        return TestServers.mariadbDatabase("range_store");
    }

    /** A page reads one stretch of the primary key, whatever the table's size: no scan, no sort. */
    @Test
    void aPageIsAnIndexRangeScanOnTheId() {
        users.insertWithGaps(1, 20_000, 1);
        users.jdbc().execute("ANALYZE TABLE tb_user");
        List<Map<String, Object>> plan = users.jdbc()
                .queryForList(
                        "EXPLAIN "
                                + JdbcRangeTable.pageSql(
                                        task, SqlDialect.detect(users.jdbc().getDataSource())),
                        5_000L,
                        15_000L,
                        200);
        assertThat(plan).singleElement().satisfies(row -> {
            assertThat(row.get("type")).isEqualTo("range");
            assertThat(row.get("key")).isEqualTo("PRIMARY");
            assertThat(String.valueOf(row.get("Extra"))).contains("Using where").doesNotContain("filesort");
        });
    }
}
