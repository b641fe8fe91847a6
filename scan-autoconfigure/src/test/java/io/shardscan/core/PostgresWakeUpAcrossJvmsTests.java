package io.shardscan.core;

import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.spi.WakeChannel;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.PostgresWakeChannel;
import javax.sql.DataSource;

/** Wake-ups through PostgreSQL LISTEN/NOTIFY, with JDBC coordination, to a node in another JVM. */
class PostgresWakeUpAcrossJvmsTests extends WakeUpAcrossJvmsContractTests {

    @Override
    String transport() {
        return "postgres";
    }

    @Override
    ShardCoordinator coordinator() {
        return new JdbcShardCoordinator(dataSource);
    }

    @Override
    WakeChannel channel(DataSource dataSource) {
        return new PostgresWakeChannel(dataSource);
    }
}
