package io.shardscan.autoconfigure;

import io.shardscan.jdbc.OwnSchema;
import io.shardscan.jdbc.SqlDialect;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.InitializingBean;

/**
 * Creates and upgrades Shardscan's own tables with Flyway when the context starts, per
 * {@code scan.jdbc.flyway.enabled}: the scripts of the database's folder under
 * {@link OwnSchema#LOCATION}, recorded in a schema history table of their own. The application's
 * migrations keep theirs, so that its {@code V1__…} and Shardscan's never meet (Flyway allows each
 * version once per history table). It runs after the application's Flyway and Liquibase and before
 * the beans that depend on database initialization ({@link ScanFlywayInitializerDetector}).
 */
public class ScanFlywayInitializer implements InitializingBean {

    private final DataSource dataSource;
    private final SqlDialect dialect;
    private final String table;
    private final @Nullable ClassLoader classLoader;

    public ScanFlywayInitializer(DataSource dataSource, String table, @Nullable ClassLoader classLoader) {
        this(dataSource, SqlDialect.detect(dataSource), table, classLoader);
    }

    /** The migrations of {@code dialect}'s folder, recorded in {@code table}. */
    public ScanFlywayInitializer(
            DataSource dataSource, SqlDialect dialect, String table, @Nullable ClassLoader classLoader) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.table = table;
        this.classLoader = classLoader;
    }

    @Override
    public void afterPropertiesSet() {
        Flyway.configure(classLoader)
                .dataSource(dataSource)
                .locations("classpath:" + OwnSchema.folder(dialect))
                .table(table)
                // the application's tables are there already, so Flyway must start the history below
                // V1 rather than take the schema as at V1 (its default baseline), which would skip V1
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .load()
                .migrate();
    }
}
