package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.ScanTasks;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.OwnTables;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestTime;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import liquibase.integration.spring.SpringLiquibase;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.datasource.init.ScriptUtils;

/**
 * A whole application that lets Spring Boot's own Liquibase auto-configuration ({@code spring-boot-liquibase},
 * Liquibase 4.33.0) run its master changelog, which creates its orders table and includes Shardscan's
 * {@code io/shardscan/db/changelog/shardscan.yaml} as docs/guides/table-and-indexes.md says, with
 * {@code scan.jdbc.initialize-schema=never}: Boot's {@link SpringLiquibase} ran before the engine, both the
 * application's changeset and Shardscan's are recorded in {@code DATABASECHANGELOG}, every table of Shardscan's
 * (leases, fences, members, ...) is there, and the application's {@code @ScanTask} handler takes every row of
 * its table to done through the JDBC coordinator. On PostgreSQL and H2; and on H2 with
 * {@code spring.liquibase.change-log} naming Shardscan's changelog itself.
 *
 * <p>The module's test {@code application.properties} turns Boot's Liquibase off for every other whole
 * application; this test turns it on by a command-line argument, which outranks that file.
 */
@ServerTests
class ScanBootLiquibaseTests {

    private static final String DB = "scan_boot_liquibase";
    private static final String MASTER = "classpath:boot-liquibase/db/changelog/db.changelog-master.yaml";
    private static final int ROWS = 40;

    @Test
    void postgresRunsTheMasterChangelogThatIncludesShardscansAndHandlesEveryRow() {
        runsTheMasterChangelogAndHandlesEveryRow(MigrationDatabases.postgres(DB), "postgresql");
    }

    @Test
    void h2RunsTheMasterChangelogThatIncludesShardscansAndHandlesEveryRow() {
        runsTheMasterChangelogAndHandlesEveryRow(MigrationDatabases.h2(DB), "h2");
    }

    @Test
    void h2RunsShardscansChangelogNamedBySpringLiquibaseChangeLogAndHandlesEveryRow() throws SQLException {
        MigrationDatabases db = MigrationDatabases.h2("scan_boot_liquibase_direct");
        // the application's table made some other way; Boot's Liquibase runs only Shardscan's changelog
        try (Connection connection = db.dataSource().getConnection()) {
            ScriptUtils.executeSqlScript(connection, new ClassPathResource("app/db/migration/h2/V1__orders.sql"));
        }
        try (ConfigurableApplicationContext context = start(db, "classpath:io/shardscan/db/changelog/shardscan.yaml")) {
            assertThat(changesets(db))
                    .as("DATABASECHANGELOG")
                    .containsExactly(
                            "shardscan-v1-postgresql shardscan io/shardscan/db/changelog/shardscan.yaml",
                            "shardscan-v2-postgresql shardscan io/shardscan/db/changelog/shardscan.yaml",
                            "shardscan-v3-postgresql shardscan io/shardscan/db/changelog/shardscan.yaml");
            handlesEveryRow(context, db);
        }
    }

    private static void runsTheMasterChangelogAndHandlesEveryRow(MigrationDatabases db, String vendor) {
        try (ConfigurableApplicationContext context = start(db, MASTER)) {
            assertThat(changesets(db))
                    .as("DATABASECHANGELOG")
                    .containsExactly(
                            "shop-orders-1-" + vendor + " shop",
                            "shardscan-v1-postgresql shardscan io/shardscan/db/changelog/shardscan.yaml",
                            "shardscan-v2-postgresql shardscan io/shardscan/db/changelog/shardscan.yaml",
                            "shardscan-v3-postgresql shardscan io/shardscan/db/changelog/shardscan.yaml");
            handlesEveryRow(context, db);
        }
    }

    /** The application, with Boot's Liquibase on and {@code spring.liquibase.change-log} at {@code changeLog}. */
    private static ConfigurableApplicationContext start(MigrationDatabases db, String changeLog) {
        List<String> args = new ArrayList<>(List.of(
                "--spring.main.web-application-type=none",
                "--spring.jmx.enabled=false",
                "--spring.liquibase.enabled=true",
                "--spring.liquibase.change-log=" + changeLog,
                "--scan.jdbc.initialize-schema=never",
                "--scan.node-id=node-boot-liquibase"));
        for (String property : db.properties()) {
            args.add("--" + property);
        }
        ConfigurableApplicationContext context =
                new SpringApplicationBuilder(App.class).run(args.toArray(String[]::new));
        try {
            assertThat(context.getBeansOfType(SpringLiquibase.class))
                    .as("Boot's own Liquibase bean")
                    .hasSize(1);
        } catch (AssertionError e) {
            context.close();
            throw e;
        }
        return context;
    }

    /** Shardscan's tables are all there, and the handler takes every row of the application's table to done. */
    private static void handlesEveryRow(ConfigurableApplicationContext context, MigrationDatabases db) {
        assertThat(OwnTables.problems(db.dataSource(), true, true, true, true))
                .as("Shardscan's tables (scan_lease, scan_fence, scan_member, ...) as Liquibase made them")
                .isEmpty();
        assertThat(context.getBean(ShardCoordinator.class)).isInstanceOf(JdbcShardCoordinator.class);

        List<Long> ids = LongStream.rangeClosed(1, ROWS).boxed().toList();
        ids.forEach(db::insertOrder);
        context.getBean(ScanTasks.class).drain("orders", TestTime.BUDGET);

        assertThat(db.doneOrders()).as("orders done").isEqualTo(ROWS);
        assertThat(context.getBean(MigrationDatabases.Handler.class).handled).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(db.jdbc()
                        .queryForList(
                                "SELECT shard FROM scan_lease WHERE task = 'orders' AND owner = ? ORDER BY shard",
                                Integer.class,
                                "node-boot-liquibase"))
                .as("the JDBC coordinator's leases in Liquibase's scan_lease")
                .containsExactly(0, 1, 2, 3);
    }

    /** The applied changesets as {@code id author [filename]}, in their order; the filename only for Shardscan's. */
    private static List<String> changesets(MigrationDatabases db) {
        return db.jdbc()
                .query(
                        "SELECT ID, AUTHOR, FILENAME FROM DATABASECHANGELOG ORDER BY ORDEREXECUTED",
                        (rs, row) -> rs.getString(1) + " " + rs.getString(2)
                                + ("shardscan".equals(rs.getString(2)) ? " " + rs.getString(3) : ""));
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(MigrationDatabases.Handler.class)
    static class App {}
}
