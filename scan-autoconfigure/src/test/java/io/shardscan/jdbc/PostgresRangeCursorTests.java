package io.shardscan.jdbc;

import io.shardscan.core.spi.RangeCursor;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

@ServerTests
class PostgresRangeCursorTests extends RangeCursorContractTests {

    @Override
    protected RangeCursor createCursor() {
        DataSource dataSource = TestServers.postgresDatabase("range_cursor");
        new OrderTable(dataSource).coordinationTables();
        return new JdbcRangeCursor(dataSource, Engines.STATEMENT_TIMEOUT);
    }
}
