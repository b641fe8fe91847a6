package io.shardscan.core;

import io.shardscan.testsupport.TestServers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

class PostgresRangeStatementTimeoutTests extends RangeStatementTimeoutContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.postgresDatabase("range_statement_timeout");
    }

    @Override
    void lockUsers(Connection locker) throws SQLException {
        try (Statement lock = locker.createStatement()) {
            lock.execute("LOCK TABLE tb_user IN ACCESS EXCLUSIVE MODE");
        }
    }

    @Override
    void unlockUsers(Connection locker) throws SQLException {
        locker.commit();
    }
}
