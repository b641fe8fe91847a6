package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

@ServerTests
class PostgresRangeStoreTests extends RangeStoreContractTests {

    @Override
    protected DataSource createDataSource() {
        return TestServers.postgresDatabase("range_store");
    }

    /** A page reads one stretch of the primary key, whatever the table's size: no scan, no sort. */
    @Test
    void aPageIsAnIndexRangeScanOnTheId() {
        users.insertWithGaps(1, 20_000, 1);
        users.jdbc().execute("ANALYZE tb_user");
        String plan = String.join(
                "\n",
                users.jdbc()
                        .queryForList(
                                "EXPLAIN "
                                        + JdbcRangeTable.pageSql(
                                                task,
                                                SqlDialect.detect(users.jdbc().getDataSource())),
                                String.class,
                                5_000L,
                                15_000L,
                                200));
        assertThat(plan)
                .contains("Index Scan using tb_user_pkey")
                .contains("Index Cond: ((user_id > '5000'::bigint) AND (user_id <= '15000'::bigint))")
                .doesNotContain("Seq Scan")
                .doesNotContain("Sort");
    }
}
