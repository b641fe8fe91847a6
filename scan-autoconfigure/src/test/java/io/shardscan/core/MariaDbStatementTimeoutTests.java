package io.shardscan.core;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

@ServerTests
class MariaDbStatementTimeoutTests extends StatementTimeoutContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.mariadbDatabase("statement_timeout");
    }

    /** LOCK TABLES … WRITE: other sessions' reads of the table wait, as behind PostgreSQL's ACCESS EXCLUSIVE. */
    @Override
    void lockOrders(Connection locker) throws SQLException {
        try (Statement lock = locker.createStatement()) {
            lock.execute("LOCK TABLES tb_order WRITE");
        }
    }

    @Override
    void unlockOrders(Connection locker) throws SQLException {
        locker.commit();
        try (Statement unlock = locker.createStatement()) {
            unlock.execute("UNLOCK TABLES");
        }
    }

    @Override
    int waitingLongerThan(JdbcTemplate jdbc, String prefix, java.time.Duration over) {
        return jdbc.queryForObject(
                "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE ? AND TIME_MS > ?",
                Integer.class,
                prefix + "%",
                over.toMillis());
    }

    @Override
    void createRefunds(JdbcTemplate jdbc) {
        jdbc.execute("CREATE TABLE tb_refund LIKE tb_order");
    }
}
