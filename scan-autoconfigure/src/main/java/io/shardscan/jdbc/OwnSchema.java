package io.shardscan.jdbc;

import java.util.List;

/**
 * Where Shardscan's own tables are defined: one folder of versioned scripts per database under
 * {@value #LOCATION} ({@code postgresql} for PostgreSQL and H2, {@code mysql} for MySQL and MariaDB),
 * named as Flyway names migrations, {@code V<n>__<what>.sql}. Every tool applies these same files:
 * {@code scan.jdbc.initialize-schema} runs all of a folder's scripts in order on every start, so
 * each is re-runnable; {@code scan.jdbc.flyway.enabled} and the Liquibase changelog
 * {@value #LIQUIBASE_CHANGELOG} apply each once. Stateless.
 */
public final class OwnSchema {

    /** The classpath folder that holds one folder of scripts per database. */
    public static final String LOCATION = "io/shardscan/db/migration";

    /** The Liquibase changelog that applies the same scripts: one changeset per script and folder. */
    public static final String LIQUIBASE_CHANGELOG = "io/shardscan/db/changelog/shardscan.yaml";

    /**
     * Every folder's scripts in version order. A schema change adds its script here, to every
     * folder and to the changelog ({@code OwnSchemaTests} fails when they differ).
     */
    static final List<String> SCRIPTS =
            List.of("V1__create_tables.sql", "V2__schedule_firings.sql", "V3__fence_shards.sql");

    private OwnSchema() {}

    /** The folder of {@code dialect}'s scripts, as a classpath path such as {@code io/shardscan/db/migration/mysql}. */
    public static String folder(SqlDialect dialect) {
        return LOCATION + "/" + dialect.migrationFolder();
    }

    /** {@code dialect}'s scripts in version order, as {@code classpath:} locations. */
    public static List<String> scriptLocations(SqlDialect dialect) {
        return SCRIPTS.stream()
                .map(script -> "classpath:" + folder(dialect) + "/" + script)
                .toList();
    }
}
