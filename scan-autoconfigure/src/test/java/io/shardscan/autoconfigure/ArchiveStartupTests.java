package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.annotation.ScanTask;
import io.shardscan.jdbc.SchemaDdl;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.StartupProblems;
import io.shardscan.testsupport.TestServers;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The startup checks of {@code scan.tasks.<name>.archive.*}: a missing archive table or index over
 * finished rows fails startup with the statements that create them, and the settings fail when
 * they cannot work. On H2, and on PostgreSQL for its own archive table statement.
 */
@ExtendWith(OutputCaptureExtension.class)
@ServerTests
class ArchiveStartupTests {

    private static final String TASK = "scan.tasks.orders.";

    private static ApplicationContextRunner runner(String url, String user) {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DataSourceAutoConfiguration.class, ScanAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + url,
                        "spring.datasource.username=" + user,
                        TASK + "table=tb_order",
                        TASK + "id-column=order_id",
                        TASK + "shard-key-column=user_id")
                .withUserConfiguration(Handler.class);
    }

    private static ApplicationContextRunner h2() {
        return runner(OrderDatabase.create(), "sa").withPropertyValues(TASK + "archive.after=7d");
    }

    @Test
    void aMissingArchiveTableFailsStartupWithTheStatementsThatCreateIt() {
        h2().withPropertyValues(TASK + "archive.to=tb_order_archive", TASK + "index-check=off")
                .run(context -> assertThat(StartupProblems.of(context))
                        .singleElement()
                        .asString()
                        .startsWith("scan.tasks.orders: scan.tasks.orders.archive.to names table tb_order_archive,"
                                + " which does not exist: create it with the columns of tb_order:\n"
                                + "  CREATE TABLE tb_order_archive AS SELECT * FROM tb_order WITH NO DATA;\n"
                                + "  ALTER TABLE tb_order_archive ALTER COLUMN order_id SET NOT NULL;\n"
                                + "  ALTER TABLE tb_order_archive ADD PRIMARY KEY (order_id);\n")
                        .endsWith("or set scan.tasks.orders.archive.to=delete to delete finished rows instead of"
                                + " moving them"));
    }

    @Test
    void postgresNamesItsOwnArchiveTableStatement() {
        JdbcEndpoint db = TestServers.postgresEndpoint("archive_startup");
        OrderTable table = new OrderTable(TestServers.postgresDatabase("archive_startup")).recreate(64, true);
        table.jdbc().execute("DROP TABLE IF EXISTS tb_order_archive");
        runner(db.url(), db.user())
                .withPropertyValues(
                        "spring.datasource.password=" + db.password(),
                        "scan.jdbc.initialize-schema=always",
                        TASK + "archive.after=7d",
                        TASK + "archive.to=tb_order_archive",
                        TASK + "index-check=off")
                .run(context -> assertThat(StartupProblems.of(context))
                        .singleElement()
                        .asString()
                        .contains(":\n  CREATE TABLE tb_order_archive (LIKE tb_order, PRIMARY KEY (order_id));\n"));
    }

    @Test
    void aMissingIndexOverFinishedRowsFailsUnderIndexCheckFail() {
        String url = OrderDatabase.create();
        JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(url, "sa", ""));
        jdbc.execute("ALTER TABLE tb_order ADD COLUMN scan_shard INT GENERATED ALWAYS AS ("
                + SchemaDdl.shardOf("user_id", 64) + ")");
        jdbc.execute("CREATE INDEX tb_order_scan_idx ON tb_order (status, scan_shard, retry_count, order_id)");
        runner(url, "sa")
                .withPropertyValues(TASK + "archive.after=7d", TASK + "archive.to=delete", TASK + "index-check=fail")
                .run(context -> assertThat(StartupProblems.of(context))
                        .singleElement()
                        .asString()
                        .contains("lacks the index that scan.tasks.orders.archive reads finished rows through")
                        .contains("CREATE INDEX tb_order_finished_idx ON tb_order (status, scan_shard, updated_at);"));
        jdbc.execute("CREATE INDEX tb_order_finished_idx ON tb_order (status, scan_shard, updated_at)");
        runner(url, "sa")
                .withPropertyValues(TASK + "archive.after=7d", TASK + "archive.to=delete", TASK + "index-check=fail")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void anAfterWithoutAUnitFailsNamingThePropertyTheValueAndAnExample() {
        // after: 7 meant as days would archive rows 7 seconds after they finished
        runner(OrderDatabase.create(), "sa")
                .withPropertyValues(TASK + "archive.after=7", TASK + "archive.to=delete", TASK + "index-check=off")
                .run(context -> assertThat(StartupProblems.of(context))
                        .singleElement()
                        .asString()
                        .startsWith("scan.tasks.orders.archive.after is '7' without a unit: write it with one,"
                                + " e.g. archive.after: 7d"));
    }

    @Test
    void afterWithoutToAndToWithoutAfterFail() {
        h2().withPropertyValues(TASK + "index-check=off").run(context -> assertThat(StartupProblems.of(context))
                .singleElement()
                .asString()
                .contains("scan.tasks.orders.archive.to is not set")
                .contains("delete"));
        runner(OrderDatabase.create(), "sa")
                .withPropertyValues(TASK + "archive.to=tb_order_archive")
                .run(context -> assertThat(StartupProblems.of(context))
                        .singleElement()
                        .asString()
                        .contains("scan.tasks.orders.archive.to is set but scan.tasks.orders.archive.after is not"));
    }

    @Test
    void badArchiveSettingsNameTheirProperty() {
        h2().withPropertyValues(TASK + "archive.to=delete", TASK + "archive.batch=0", TASK + "archive.batchh=10")
                .run(context -> assertThat(StartupProblems.of(context))
                        .anySatisfy(p -> assertThat(p)
                                .contains("scan.tasks.orders.archive.batchh")
                                .contains("did you mean 'batch'?"))
                        .anySatisfy(p -> assertThat(p).contains("scan.tasks.orders.archive.batch must be at least 1")));
        h2().withPropertyValues(TASK + "archive.to=tb_order").run(context -> assertThat(StartupProblems.of(context))
                .singleElement()
                .asString()
                .contains("scan.tasks.orders.archive.to 'tb_order' is the scanned table itself"));
    }

    @Test
    void startsWithTheArchiveTableItsStatementsCreate() {
        String url = OrderDatabase.create();
        JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(url, "sa", ""));
        jdbc.execute("CREATE TABLE tb_order_archive AS SELECT * FROM tb_order WITH NO DATA");
        jdbc.execute("ALTER TABLE tb_order_archive ALTER COLUMN order_id SET NOT NULL");
        jdbc.execute("ALTER TABLE tb_order_archive ADD PRIMARY KEY (order_id)");
        runner(url, "sa")
                .withPropertyValues(
                        TASK + "archive.after=30d",
                        TASK + "archive.to=tb_order_archive",
                        TASK + "archive.include-dead=true",
                        TASK + "archive.batch=100",
                        TASK + "archive.pause=1",
                        TASK + "index-check=off")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void anArchiveTableLackingAColumnFailsWithTheStatementThatAddsIt() {
        String url = OrderDatabase.create();
        JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(url, "sa", ""));
        jdbc.execute("CREATE TABLE tb_order_archive (order_id BIGINT PRIMARY KEY, user_id BIGINT NOT NULL,"
                + " status SMALLINT NOT NULL, retry_count INT NOT NULL, updated_at TIMESTAMP NOT NULL)");
        ApplicationContextRunner runner = runner(url, "sa")
                .withPropertyValues(
                        TASK + "archive.after=7d", TASK + "archive.to=tb_order_archive", TASK + "index-check=off");
        // CREATE TABLE would fail: the table exists
        runner.run(context -> assertThat(StartupProblems.of(context))
                .singleElement()
                .asString()
                .contains("which lacks column LAST_ERROR of tb_order")
                .endsWith("add it:\n  ALTER TABLE tb_order_archive ADD COLUMN LAST_ERROR CHARACTER VARYING(512)")
                .doesNotContain("CREATE TABLE"));
        jdbc.execute("ALTER TABLE tb_order_archive ADD COLUMN LAST_ERROR CHARACTER VARYING(512)");
        runner.run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void postgresAddsTheMissingColumnsWithTheirTypes() {
        JdbcEndpoint db = TestServers.postgresEndpoint("archive_startup");
        OrderTable table = new OrderTable(TestServers.postgresDatabase("archive_startup")).recreate(64, true);
        table.jdbc().execute("DROP TABLE IF EXISTS tb_order_archive");
        table.jdbc().execute("CREATE TABLE tb_order_archive (order_id BIGINT PRIMARY KEY, user_id BIGINT NOT NULL)");
        ApplicationContextRunner runner = runner(db.url(), db.user())
                .withPropertyValues(
                        "spring.datasource.password=" + db.password(),
                        "scan.jdbc.initialize-schema=always",
                        TASK + "archive.after=7d",
                        TASK + "archive.to=tb_order_archive",
                        TASK + "index-check=off");
        List<String> statements = List.of(
                "ALTER TABLE tb_order_archive ADD COLUMN phone varchar(32)",
                "ALTER TABLE tb_order_archive ADD COLUMN status int2",
                "ALTER TABLE tb_order_archive ADD COLUMN retry_count int4",
                "ALTER TABLE tb_order_archive ADD COLUMN updated_at timestamp(6)",
                "ALTER TABLE tb_order_archive ADD COLUMN last_error varchar(512)");
        runner.run(context -> assertThat(StartupProblems.of(context))
                .singleElement()
                .asString()
                .contains("lacks columns phone, status, retry_count, updated_at, last_error of tb_order")
                .endsWith("add them:\n  " + String.join(";\n  ", statements)));
        statements.forEach(table.jdbc()::execute);
        runner.run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void anArchiveTableWithoutAKeyOnTheIdWarns(CapturedOutput output) {
        String url = OrderDatabase.create();
        JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(url, "sa", ""));
        jdbc.execute("CREATE TABLE tb_order_archive AS SELECT * FROM tb_order WITH NO DATA");
        runner(url, "sa")
                .withPropertyValues(
                        TASK + "archive.after=7d", TASK + "archive.to=tb_order_archive", TASK + "index-check=off")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(output.getOut() + output.getErr())
                            .contains("scan.tasks.orders: archive table tb_order_archive (scan.tasks.orders.archive.to)"
                                    + " has no primary key or unique key on order_id")
                            .contains("ALTER TABLE tb_order_archive ALTER COLUMN order_id SET NOT NULL;\n"
                                    + "  ALTER TABLE tb_order_archive ADD PRIMARY KEY (order_id)");
                });
        jdbc.execute("ALTER TABLE tb_order_archive ALTER COLUMN order_id SET NOT NULL");
        jdbc.execute("CREATE UNIQUE INDEX tb_order_archive_id ON tb_order_archive (order_id)");
        int before = (output.getOut() + output.getErr()).split("has no primary key").length;
        runner(url, "sa")
                .withPropertyValues(
                        TASK + "archive.after=7d", TASK + "archive.to=tb_order_archive", TASK + "index-check=off")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat((output.getOut() + output.getErr()).split("has no primary key"))
                            .hasSize(before);
                });
    }

    record Order(long orderId, long userId) {}

    static class Handler {
        @ScanTask("orders")
        public void send(Order order) {}
    }
}
