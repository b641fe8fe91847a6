package io.shardscan.core;

import io.shardscan.testsupport.TestServers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

class MariaDbRangeStatementTimeoutTests extends RangeStatementTimeoutContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.mariadbDatabase("range_statement_timeout");
    }

    /** LOCK TABLES … WRITE: other sessions' reads of the table wait, as behind PostgreSQL's ACCESS EXCLUSIVE. */
    @Override
    void lockUsers(Connection locker) throws SQLException {
        try (Statement lock = locker.createStatement()) {
            lock.execute("LOCK TABLES tb_user WRITE");
        }
    }

    @Override
    void unlockUsers(Connection locker) throws SQLException {
        locker.commit();
        try (Statement unlock = locker.createStatement()) {
            unlock.execute("UNLOCK TABLES");
        }
    }
}
