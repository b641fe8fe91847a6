package io.shardscan.core;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

/** Transactional range jobs on MariaDB. */
@ServerTests
class MariaDbTransactionalRangeTests extends TransactionalRangeContractTests {

    @Override
    protected DataSource createDataSource() {
        return TestServers.mariadbDatabase("transactional_range");
    }
}
