package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.ScanTasks;
import io.shardscan.jdbc.OwnTables;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.StartupProblems;
import io.shardscan.testsupport.TestTime;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * An application that migrates its own schema with Flyway, its {@code V1__orders.sql} in
 * {@code classpath:app/db/migration/{vendor}}, and sets {@code scan.jdbc.flyway.enabled} as docs/guides/table-and-indexes.md
 * says: Shardscan's {@code V1} and {@code V2} run beside the application's in its own history table, every table and
 * column the startup checks know is there, the engine starts and handles a row, a restart migrates
 * nothing, and no statement logged "already exists". On PostgreSQL, MariaDB and H2.
 */
@ServerTests
@ExtendWith(OutputCaptureExtension.class)
class ScanFlywayMigrationTests {

    private static final String DB = "scan_flyway";

    private static ApplicationContextRunner runner(MigrationDatabases db) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class, FlywayAutoConfiguration.class, ScanAutoConfiguration.class))
                .withPropertyValues(db.properties())
                .withPropertyValues(
                        "spring.flyway.locations=classpath:app/db/migration/{vendor}", "scan.jdbc.flyway.enabled=true")
                .withBean(MigrationDatabases.Handler.class);
    }

    @Test
    void postgresMigratesShardscansTablesBesideTheApplicationsOwnV1(CapturedOutput output) {
        migratesBesideTheApplicationsOwnV1(MigrationDatabases.postgres(DB), output);
    }

    @Test
    void mariadbMigratesShardscansTablesBesideTheApplicationsOwnV1(CapturedOutput output) {
        migratesBesideTheApplicationsOwnV1(MigrationDatabases.mariadb(DB), output);
    }

    @Test
    void h2MigratesShardscansTablesBesideTheApplicationsOwnV1(CapturedOutput output) {
        migratesBesideTheApplicationsOwnV1(MigrationDatabases.h2(DB), output);
    }

    @Test
    void withoutFlywayOnTheClassPathTheSettingFailsStartupNamingTheDependency() {
        MigrationDatabases db = MigrationDatabases.h2("scan_flyway_missing");
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DataSourceAutoConfiguration.class, ScanAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader(Flyway.class))
                .withPropertyValues(db.properties())
                .withPropertyValues("scan.jdbc.flyway.enabled=true")
                .withBean(MigrationDatabases.Handler.class)
                .run(context -> assertThat(StartupProblems.of(context))
                        .singleElement()
                        .asString()
                        .startsWith("scan.jdbc.flyway.enabled is true, but Flyway is not on the class path:")
                        .contains("org.flywaydb:flyway-core"));
    }

    private static void migratesBesideTheApplicationsOwnV1(MigrationDatabases db, CapturedOutput output) {
        runner(db).run(context -> {
            assertThat(context).hasNotFailed();
            db.insertOrder(7);
            // not the drain's count: a probe may find the row between the insert and the drain, which then
            // counts none (seen on a loaded machine); the handler's calls say it ran once
            context.getBean(ScanTasks.class).drain("orders", TestTime.BUDGET);
            assertThat(context.getBean(MigrationDatabases.Handler.class).handled)
                    .containsExactly(7L);
        });
        assertThat(db.doneOrders()).isEqualTo(1);
        assertThat(OwnTables.problems(db.dataSource(), true, true, true, true))
                .as("every table and column any task needs")
                .isEmpty();
        assertThat(db.migrations("flyway_schema_history")).containsExactly("V1__orders.sql");
        assertThat(db.migrations("scan_schema_history"))
                .containsExactly("V1__create_tables.sql", "V2__schedule_firings.sql", "V3__fence_shards.sql");

        runner(db).run(context -> assertThat(context).hasNotFailed());
        assertThat(db.migrations("scan_schema_history"))
                .containsExactly("V1__create_tables.sql", "V2__schedule_firings.sql", "V3__fence_shards.sql");
        assertThat(output.getAll()).doesNotContainIgnoringCase("already exists");
    }
}
