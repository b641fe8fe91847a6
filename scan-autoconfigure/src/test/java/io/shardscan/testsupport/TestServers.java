package io.shardscan.testsupport;

import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** TEMPORARY stub until the real one lands. */
public final class TestServers {
    private TestServers() {}

    public static DataSource h2(String name) {
        return new DriverManagerDataSource("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
    }

    public static DataSource postgresDatabase(String name) {
        throw new UnsupportedOperationException();
    }

    public static DataSource mariadbDatabase(String name) {
        throw new UnsupportedOperationException();
    }
}
