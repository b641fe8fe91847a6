package io.shardscan.jdbc;

import io.shardscan.core.spi.RangeCursor;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

class H2RangeCursorTests extends RangeCursorContractTests {

    @Override
    protected RangeCursor createCursor() {
        DataSource dataSource = TestServers.h2("range_cursor");
        new OrderTable(dataSource).coordinationTables();
        return new JdbcRangeCursor(dataSource, Engines.STATEMENT_TIMEOUT);
    }
}
