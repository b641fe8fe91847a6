package io.shardscan.autoconfigure;

import io.shardscan.annotation.ScanTask;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.TestServers;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The databases of the migration tests, emptied of the application's table, Shardscan's tables and
 * every tool's history, so that each test starts as a new application does; and the application's
 * handler of the task {@code orders} on {@code tb_order} of 4 shards.
 */
record MigrationDatabases(JdbcEndpoint endpoint, DataSource dataSource) {

    private static final List<String> TABLES = List.of(
            "tb_order",
            "flyway_schema_history",
            "scan_schema_history",
            "DATABASECHANGELOG",
            "DATABASECHANGELOGLOCK",
            "scan_lease",
            "scan_member",
            "scan_fence",
            "scan_task",
            "scan_endpoint_trip",
            "scan_endpoint_ban",
            "scan_range_cursor",
            "scan_range",
            "scan_range_failure");

    static MigrationDatabases postgres(String name) {
        return new MigrationDatabases(TestServers.postgresEndpoint(name), TestServers.postgresDatabase(name)).empty();
    }

    static MigrationDatabases mariadb(String name) {
        return new MigrationDatabases(TestServers.mariadbEndpoint(name), TestServers.mariadbDatabase(name)).empty();
    }

    static MigrationDatabases h2(String name) {
        return new MigrationDatabases(TestServers.h2Endpoint(name), TestServers.h2(name)).empty();
    }

    /** The properties of {@code spring.datasource} and of the task {@code orders}. */
    String[] properties() {
        return new String[] {
            "spring.datasource.url=" + endpoint.url(),
            "spring.datasource.username=" + endpoint.user(),
            "spring.datasource.password=" + endpoint.password(),
            "scan.tasks.orders.table=tb_order",
            "scan.tasks.orders.id-column=order_id",
            "scan.tasks.orders.shard-key-column=user_id",
            "scan.tasks.orders.shards=4"
        };
    }

    JdbcTemplate jdbc() {
        return new JdbcTemplate(dataSource);
    }

    /** Inserts the pending order {@code id}. */
    void insertOrder(long id) {
        jdbc().update("INSERT INTO tb_order (order_id, user_id, updated_at) VALUES (?, ?, CURRENT_TIMESTAMP)", id, id);
    }

    int doneOrders() {
        Integer done = jdbc().queryForObject("SELECT COUNT(*) FROM tb_order WHERE status = 1", Integer.class);
        return done == null ? 0 : done;
    }

    /** The SQL migrations a Flyway history table records, by script, in their order (Flyway's lower-case names need quotes on H2). */
    List<String> migrations(String table) {
        String q = mariadb() ? "`" : "\"";
        return jdbc().queryForList(
                        "SELECT " + q + "script" + q + " FROM " + q + table + q + " WHERE " + q + "type" + q
                                + " = 'SQL'" + " AND " + q + "success" + q + " ORDER BY " + q + "installed_rank" + q,
                        String.class);
    }

    private boolean mariadb() {
        return endpoint.url().startsWith("jdbc:mariadb:") || endpoint.url().startsWith("jdbc:mysql:");
    }

    private MigrationDatabases empty() {
        JdbcTemplate jdbc = jdbc();
        for (String table : TABLES) {
            jdbc.execute("DROP TABLE IF EXISTS " + table);
            if (endpoint.url().startsWith("jdbc:h2:") || endpoint.url().startsWith("jdbc:postgresql:")) {
                // Flyway creates its history on H2 quoted in lower case
                jdbc.execute("DROP TABLE IF EXISTS \"" + table.toLowerCase(Locale.ROOT) + "\"");
            }
        }
        return this;
    }

    /** The application's handler: the orders it was called with. */
    static class Handler {
        final List<Long> handled = new CopyOnWriteArrayList<>();

        @ScanTask("orders")
        public void send(Order order) {
            handled.add(order.orderId());
        }
    }

    record Order(long orderId, long userId) {}
}
