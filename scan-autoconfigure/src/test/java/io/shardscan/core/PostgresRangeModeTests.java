package io.shardscan.core;

import io.shardscan.core.spi.RangeCursor;
import io.shardscan.jdbc.JdbcRangeCursor;
import io.shardscan.redis.RedisRangeCursor;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.RedisConnections;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Range mode on PostgreSQL with the cursor in the database (JDBC coordination). */
@ServerTests
class PostgresRangeModeTests extends RangeModeContractTests {

    private static LettuceConnectionFactory connectionFactory;

    @BeforeAll
    static void connect() {
        connectionFactory = RedisConnections.shared();
    }

    @AfterAll
    static void disconnect() {
        connectionFactory.destroy();
    }

    @Override
    protected DataSource createDataSource() {
        return TestServers.postgresDatabase("range_mode");
    }

    @Override
    protected RangeCursor createCursor(DataSource dataSource) {
        return new JdbcRangeCursor(dataSource, Engines.STATEMENT_TIMEOUT);
    }

    @Override
    protected RangeCursor createOtherCursor(DataSource dataSource) {
        return new RedisRangeCursor(connectionFactory);
    }
}
