package io.shardscan.core;

import io.shardscan.jdbc.JdbcRangeCursor;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

/** Range mode on PostgreSQL with the cursor in the database (JDBC coordination). */
class PostgresRangeModeTests extends RangeModeContractTests {

    @Override
    protected DataSource createDataSource() {
        return TestServers.postgresDatabase("range_mode");
    }

    @Override
    protected RangeCursor createCursor(DataSource dataSource) {
        return new JdbcRangeCursor(dataSource);
    }
}
