package io.shardscan.autoconfigure;

import io.shardscan.jdbc.OwnSchema;
import io.shardscan.jdbc.SqlDialect;
import java.util.List;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.sql.init.DatabaseInitializationSettings;

/**
 * Creates Shardscan's own tables (leases, members, fences, runs, ranges, the endpoint blacklist) when the
 * context starts, per {@code scan.jdbc.initialize-schema}: {@code embedded} (only on H2, HSQLDB or
 * Derby), {@code always} or {@code never}. It runs every script of the detected dialect's folder under
 * {@link OwnSchema#LOCATION} in version order, the same files that Flyway and Liquibase apply once; they
 * use {@code IF NOT EXISTS}, so running them on every start is safe. Beans annotated with
 * {@code @DependsOnDatabaseInitialization} are created after it.
 */
public class ScanSchemaInitializer extends DataSourceScriptDatabaseInitializer {

    public ScanSchemaInitializer(DataSource dataSource, DatabaseInitializationMode mode) {
        this(dataSource, mode, () -> SqlDialect.detect(dataSource));
    }

    /** The same with the scripts of {@code dialect}'s folder, asked for only when a mode other than never runs them. */
    public ScanSchemaInitializer(DataSource dataSource, DatabaseInitializationMode mode, Supplier<SqlDialect> dialect) {
        super(dataSource, settings(mode, dialect));
    }

    private static DatabaseInitializationSettings settings(
            DatabaseInitializationMode mode, Supplier<SqlDialect> dialect) {
        DatabaseInitializationSettings settings = new DatabaseInitializationSettings();
        settings.setMode(mode);
        // with NEVER nothing runs, so do not open a connection to detect the dialect
        settings.setSchemaLocations(
                mode == DatabaseInitializationMode.NEVER ? List.of() : OwnSchema.scriptLocations(dialect.get()));
        return settings;
    }
}
