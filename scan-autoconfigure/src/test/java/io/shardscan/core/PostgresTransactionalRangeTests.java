package io.shardscan.core;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

/** Transactional range jobs on PostgreSQL. */
@ServerTests
class PostgresTransactionalRangeTests extends TransactionalRangeContractTests {

    @Override
    protected DataSource createDataSource() {
        return TestServers.postgresDatabase("transactional_range");
    }
}
