package io.shardscan.core;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

@ServerTests
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
    int waitingLongerThan(JdbcTemplate jdbc, String prefix, java.time.Duration over) {
        return jdbc.queryForObject(
                "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE ?"
                        + " AND now() - query_start > ? * INTERVAL '1 millisecond'",
                Integer.class,
                prefix + "%",
                over.toMillis());
    }

    @Override
    void createRefunds(JdbcTemplate jdbc) {
        jdbc.execute("CREATE TABLE tb_refund (LIKE tb_order INCLUDING ALL)");
    }
}
