package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.annotation.ScanTask;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.StartupProblems;
import io.shardscan.testsupport.TestServers;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The startup checks where the databases differ: on PostgreSQL and MariaDB the default
 * {@code scan.jdbc.initialize-schema=embedded} creates none of Shardscan's tables, and their own
 * column types (a PostgreSQL UUID id, a MariaDB VARCHAR status) are named as the database calls them.
 */
@ServerTests
class StartupChecksOnServersTests {

    private static final String TASK = "scan.tasks.orders.";

    private static ApplicationContextRunner runner(JdbcEndpoint db) {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DataSourceAutoConfiguration.class, ScanAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + db.url(),
                        "spring.datasource.username=" + db.user(),
                        "spring.datasource.password=" + db.password(),
                        TASK + "table=tb_order",
                        TASK + "id-column=order_id",
                        TASK + "shard-key-column=user_id",
                        TASK + "index-check=off")
                .withUserConfiguration(Handler.class);
    }

    @Test
    void postgresWithoutOwnTablesFailsNamingTheSettingAndScript() {
        JdbcEndpoint db = TestServers.postgresEndpoint("scan_checks_tables");
        new OrderTable(TestServers.postgresDatabase("scan_checks_tables")).recreate(4, false);
        runner(db).run(context -> assertThat(StartupProblems.of(context))
                .containsExactly(
                        missing("scan_lease", "postgresql"),
                        missing("scan_member", "postgresql"),
                        missing("scan_fence", "postgresql"),
                        missing("scan_task", "postgresql")));
    }

    @Test
    void mariadbWithoutOwnTablesFailsNamingTheSettingAndScript() {
        JdbcEndpoint db = TestServers.mariadbEndpoint("scan_checks_tables");
        new OrderTable(TestServers.mariadbDatabase("scan_checks_tables")).recreate(4, false);
        runner(db).run(context -> assertThat(StartupProblems.of(context))
                .containsExactly(
                        missing("scan_lease", "mysql"),
                        missing("scan_member", "mysql"),
                        missing("scan_fence", "mysql"),
                        missing("scan_task", "mysql")));
    }

    @Test
    void postgresUuidIdFailsNamingItsType() {
        JdbcEndpoint db = TestServers.postgresEndpoint("scan_checks_types");
        OrderTable table = new OrderTable(TestServers.postgresDatabase("scan_checks_types")).recreate(4, false);
        table.jdbc().execute("DROP TABLE tb_order");
        table.jdbc()
                .execute("CREATE TABLE tb_order (order_id UUID PRIMARY KEY, user_id BIGINT NOT NULL, status SMALLINT"
                        + " NOT NULL, retry_count INT NOT NULL, updated_at TIMESTAMPTZ NOT NULL, last_error TEXT)");
        runner(db).withPropertyValues("scan.jdbc.initialize-schema=always").run(context -> assertThat(
                        StartupProblems.of(context))
                .singleElement()
                .asString()
                .contains("column order_id (scan.tasks.orders.id-column) is of type UUID")
                .contains("set scan.tasks.orders.id-type: text"));
    }

    /**
     * The index a task needs depends on its columns' types (a text key's hash, not its MOD): with a type
     * problem the startup check prints no index to create, rather than one that the database refuses.
     */
    @Test
    void aTypeProblemPrintsNoIndexForTheWrongTypes() {
        JdbcEndpoint db = TestServers.postgresEndpoint("scan_checks_types");
        OrderTable table = new OrderTable(TestServers.postgresDatabase("scan_checks_types")).recreate(4, false);
        table.jdbc().execute("DROP TABLE tb_order");
        table.jdbc()
                .execute("CREATE TABLE tb_order (order_id UUID PRIMARY KEY, user_id VARCHAR(40) NOT NULL, status"
                        + " SMALLINT NOT NULL, retry_count INT NOT NULL, updated_at TIMESTAMPTZ NOT NULL, last_error"
                        + " TEXT)");
        runner(db)
                .withPropertyValues("scan.jdbc.initialize-schema=always", TASK + "index-check=fail")
                .run(context -> assertThat(StartupProblems.of(context))
                        .hasSize(2)
                        .allSatisfy(problem -> assertThat(problem).doesNotContain("CREATE INDEX")));
    }

    @Test
    void mariadbVarcharStatusFailsNamingItsType() {
        JdbcEndpoint db = TestServers.mariadbEndpoint("scan_checks_types");
        OrderTable table = new OrderTable(TestServers.mariadbDatabase("scan_checks_types")).recreate(4, false);
        table.jdbc().execute("ALTER TABLE tb_order MODIFY status VARCHAR(16) NOT NULL");
        runner(db).withPropertyValues("scan.jdbc.initialize-schema=always").run(context -> assertThat(
                        StartupProblems.of(context))
                .singleElement()
                .asString()
                .contains("column status (scan.tasks.orders.status-column) is of type VARCHAR")
                .contains("whole-number type"));
    }

    @Test
    void postgresRefusesAMatchValueAboveASignedIntegersRange() {
        JdbcEndpoint db = TestServers.postgresEndpoint("scan_checks_match");
        OrderTable table = new OrderTable(TestServers.postgresDatabase("scan_checks_match")).recreate(4, false);
        table.jdbc().execute("ALTER TABLE tb_order ADD COLUMN kind INT4");
        // 3 000 000 000 is below 2^32 but above INT4's 2 147 483 647: no row could ever match it
        runner(db)
                .withPropertyValues("scan.jdbc.initialize-schema=always", TASK + "match.kind=3000000000")
                .run(context -> assertThat(StartupProblems.of(context))
                        .singleElement()
                        .asString()
                        .contains("match value '3000000000' for column kind (scan.tasks.orders.match.kind) is outside"
                                + " the range of its type"));
        runner(db)
                .withPropertyValues("scan.jdbc.initialize-schema=always", TASK + "match.kind=2147483647")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void mariadbAllowsTheUnsignedRangeOnlyToUnsignedColumns() {
        JdbcEndpoint db = TestServers.mariadbEndpoint("scan_checks_match");
        OrderTable table = new OrderTable(TestServers.mariadbDatabase("scan_checks_match")).recreate(4, false);
        table.jdbc().execute("ALTER TABLE tb_order ADD COLUMN kind INT, ADD COLUMN ukind INT UNSIGNED");
        runner(db)
                .withPropertyValues(
                        "scan.jdbc.initialize-schema=always",
                        TASK + "match.kind=3000000000",
                        TASK + "match.ukind=3000000000")
                .run(context -> assertThat(StartupProblems.of(context))
                        .singleElement()
                        .asString()
                        .contains("match value '3000000000' for column kind (scan.tasks.orders.match.kind) is outside"
                                + " the range of its type"));
        runner(db)
                .withPropertyValues("scan.jdbc.initialize-schema=always", TASK + "match.ukind=-1")
                .run(context -> assertThat(StartupProblems.of(context))
                        .singleElement()
                        .asString()
                        .contains("match value '-1' for column ukind (scan.tasks.orders.match.ukind) is outside"));
    }

    /**
     * The table guide's shard column of 64 shards under a task of 16 (the newcomer's stall: rows whose
     * column is 16..63 were never fetched, without an error): startup fails naming MariaDB's
     * spelling of the expression and both fixes; once the named statement ran, it starts. A column
     * of 16 shards under a task of 64 loses no row: it starts.
     */
    @Test
    void mariadbShardColumnOfMoreShardsThanTheTaskFailsNamingBothFixes() {
        JdbcEndpoint db = TestServers.mariadbEndpoint("scan_checks_shards");
        OrderTable table = new OrderTable(TestServers.mariadbDatabase("scan_checks_shards")).recreate(64, true);
        String ddl = "ALTER TABLE tb_order MODIFY COLUMN scan_shard INT AS (MOD(MOD(user_id, 16) + 16, 16)) STORED";
        ApplicationContextRunner runner = runner(db).withPropertyValues("scan.jdbc.initialize-schema=always");
        runner.withPropertyValues(TASK + "shards=16").run(context -> assertThat(StartupProblems.of(context))
                .singleElement()
                .asString()
                .isEqualTo("scan.tasks.orders: shard column scan_shard of table tb_order is generated as"
                        + " (`user_id` MOD 64 + 64) MOD 64, which gives rows the shards 0..63, but"
                        + " scan.tasks.orders.shards is 16: pending rows whose scan_shard is 16 or more are never"
                        + " fetched, so they never run and stay pending without an error. Set"
                        + " scan.tasks.orders.shards=64, or give the column the task's 16 shards:\n  " + ddl));
        table.jdbc().execute(ddl);
        runner.withPropertyValues(TASK + "shards=16")
                .run(context -> assertThat(context).hasNotFailed());
        runner.withPropertyValues(TASK + "shards=64")
                .run(context -> assertThat(context).hasNotFailed());
    }

    private static String missing(String table, String folder) {
        return "Shardscan's table " + table + " does not exist: set scan.jdbc.initialize-schema=always (the default,"
                + " embedded, creates Shardscan's tables on embedded databases only), or scan.jdbc.flyway.enabled=true"
                + " to migrate them with Flyway, or include io/shardscan/db/changelog/shardscan.yaml in your Liquibase"
                + " changelog, or apply the scripts in io/shardscan/db/migration/" + folder
                + " from the scan-autoconfigure jar with your migration tool";
    }

    record Order(long orderId, long userId) {}

    static class Handler {
        @ScanTask("orders")
        public void send(Order order) {}
    }
}
