package io.shardscan.core;

import io.shardscan.testsupport.TestServers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

class PostgresStatementTimeoutTests extends StatementTimeoutContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.postgresDatabase("statement_timeout");
    }

    @Override
    void lockOrders(Connection locker) throws SQLException {
        try (Statement lock = locker.createStatement()) {
            lock.execute("LOCK TABLE tb_order IN ACCESS EXCLUSIVE MODE");
        }
    }

    @Override
    void unlockOrders(Connection locker) throws SQLException {
        locker.commit();
    }

    @Override
    void createRefunds(JdbcTemplate jdbc) {
        jdbc.execute("CREATE TABLE tb_refund (LIKE tb_order INCLUDING ALL)");
    }
}
