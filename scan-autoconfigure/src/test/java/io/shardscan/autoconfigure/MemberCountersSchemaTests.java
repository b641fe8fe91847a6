package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.annotation.ScanTask;
import io.shardscan.testsupport.StartupProblems;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A {@code scan_member} table from before nodes published their counters (a development build
 * before 0.1.0): startup names the {@code ALTER TABLE} that adds the column.
 */
class MemberCountersSchemaTests {

    private static final String TASK = "scan.tasks.orders.";

    private static final String[] OLD_MEMBER_TABLE = {
        "CREATE TABLE scan_member (task VARCHAR(64) NOT NULL, node VARCHAR(128) NOT NULL,"
                + " heartbeat_at TIMESTAMP NOT NULL, PRIMARY KEY (task, node))"
    };

    private ApplicationContextRunner runner(String url) {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DataSourceAutoConfiguration.class, ScanAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + url,
                        TASK + "table=tb_order",
                        TASK + "id-column=order_id",
                        TASK + "shard-key-column=user_id")
                .withUserConfiguration(Handler.class);
    }

    @Test
    void aMemberTableWithoutCountersFailsStartupNamingTheStatementThatAddsThem() {
        String url = OrderDatabase.create();
        execute(url, OLD_MEMBER_TABLE);
        runner(url)
                .withPropertyValues("scan.jdbc.initialize-schema=never")
                .run(context -> assertThat(StartupProblems.of(context)).anySatisfy(p -> assertThat(p)
                        .startsWith("Shardscan's table scan_member lacks column counters")
                        .contains("ALTER TABLE scan_member ADD COLUMN counters VARCHAR(100);")));
    }

    private static void execute(String url, String... statements) {
        try (Connection connection = DriverManager.getConnection(url, "sa", "");
                Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    record Order(long orderId, long userId) {}

    static class Handler {
        @ScanTask("orders")
        public void send(Order order) {}
    }
}
