package io.shardscan.autoconfigure;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/** A fresh in-memory H2 database holding the {@code tb_order} table the tests scan. */
final class OrderDatabase {

    private OrderDatabase() {}

    /**
     * Creates the database and its table as user {@code sa}, the user Spring Boot picks for an
     * embedded database; returns the JDBC URL for {@code spring.datasource.url}.
     */
    static String create() {
        String url = "jdbc:h2:mem:scan-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        try (Connection connection = DriverManager.getConnection(url, "sa", "");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE tb_order(order_id BIGINT PRIMARY KEY, user_id BIGINT NOT NULL,"
                    + " status SMALLINT NOT NULL DEFAULT 0, retry_count INT NOT NULL DEFAULT 0,"
                    + " updated_at TIMESTAMP NOT NULL, last_error VARCHAR(512))");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return url;
    }
}
