package io.shardscan.core;

import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

/** Transactional range jobs on H2. */
class H2TransactionalRangeTests extends TransactionalRangeContractTests {

    @Override
    protected DataSource createDataSource() {
        return TestServers.h2("transactional_range");
    }
}
