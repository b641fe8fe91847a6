package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.ScanTasks;
import io.shardscan.jdbc.OwnTables;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestTime;
import java.util.List;
import liquibase.integration.spring.SpringLiquibase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.io.DefaultResourceLoader;

/**
 * An application whose changelog creates its orders table and includes Shardscan's
 * {@code io/shardscan/db/changelog/shardscan.yaml} as docs/guides/table-and-indexes.md says, applied by Liquibase's
 * {@link SpringLiquibase} (what Boot runs) before the application starts: the database's changeset
 * of Shardscan's {@code V1} is applied under the changelog's own path, every table and column the
 * startup checks know is there, the engine starts with {@code initialize-schema=never} and handles a
 * row, a second update applies nothing, and no statement logged "already exists". On PostgreSQL,
 * MariaDB and H2.
 */
@ServerTests
@ExtendWith(OutputCaptureExtension.class)
class ScanLiquibaseChangelogTests {

    private static final String DB = "scan_liquibase";

    @Test
    void postgresAppliesThePostgresqlScriptsBesideTheApplicationsChangelog(CapturedOutput output) {
        appliesBesideTheApplicationsChangelog(MigrationDatabases.postgres(DB), "postgresql", output);
    }

    @Test
    void mariadbAppliesTheMysqlScriptsBesideTheApplicationsChangelog(CapturedOutput output) {
        appliesBesideTheApplicationsChangelog(MigrationDatabases.mariadb(DB), "mysql", output);
    }

    @Test
    void h2AppliesThePostgresqlScriptsBesideTheApplicationsChangelog(CapturedOutput output) {
        appliesBesideTheApplicationsChangelog(MigrationDatabases.h2(DB), "postgresql", output);
    }

    private static void appliesBesideTheApplicationsChangelog(
            MigrationDatabases db, String folder, CapturedOutput output) {
        update(db);
        assertThat(changesets(db))
                .hasSize(4)
                .endsWith(
                        "shardscan-v1-" + folder + " io/shardscan/db/changelog/shardscan.yaml",
                        "shardscan-v2-" + folder + " io/shardscan/db/changelog/shardscan.yaml",
                        "shardscan-v3-" + folder + " io/shardscan/db/changelog/shardscan.yaml");
        assertThat(OwnTables.problems(db.dataSource(), true, true, true, true))
                .as("every table and column any task needs")
                .isEmpty();
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DataSourceAutoConfiguration.class, ScanAutoConfiguration.class))
                .withPropertyValues(db.properties())
                .withPropertyValues("scan.jdbc.initialize-schema=never")
                .withBean(MigrationDatabases.Handler.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    db.insertOrder(7);
                    // not the drain's count: a probe may find the row between the insert and the drain, which then
                    // counts none (seen on a loaded machine); the handler's calls say it ran once
                    context.getBean(ScanTasks.class).drain("orders", TestTime.BUDGET);
                    assertThat(context.getBean(MigrationDatabases.Handler.class).handled)
                            .containsExactly(7L);
                });
        assertThat(db.doneOrders()).isEqualTo(1);

        update(db);
        assertThat(changesets(db)).hasSize(4);
        assertThat(output.getAll()).doesNotContainIgnoringCase("already exists");
    }

    /** Liquibase's update of the application's changelog, as Boot's auto-configuration runs it. */
    private static void update(MigrationDatabases db) {
        SpringLiquibase liquibase = new SpringLiquibase();
        liquibase.setDataSource(db.dataSource());
        liquibase.setChangeLog("classpath:app/db/changelog/master.yaml");
        liquibase.setResourceLoader(new DefaultResourceLoader());
        try {
            liquibase.afterPropertiesSet();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The applied changesets as {@code id filename}, in their order. */
    private static List<String> changesets(MigrationDatabases db) {
        return db.jdbc()
                .query(
                        "SELECT ID, FILENAME FROM DATABASECHANGELOG ORDER BY ORDEREXECUTED",
                        (rs, row) -> rs.getString(1) + " " + rs.getString(2));
    }
}
