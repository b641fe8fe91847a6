package io.shardscan.jdbc;

import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

class H2RangeStoreTests extends RangeStoreContractTests {

    @Override
    protected DataSource createDataSource() {
        return TestServers.h2("range_store");
    }
}
