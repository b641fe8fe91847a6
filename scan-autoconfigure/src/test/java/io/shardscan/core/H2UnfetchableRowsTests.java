package io.shardscan.core;

import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

class H2UnfetchableRowsTests extends UnfetchableRowsContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.h2("unfetchable_rows");
    }
}
