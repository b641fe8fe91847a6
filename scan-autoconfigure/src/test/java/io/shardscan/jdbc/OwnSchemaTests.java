package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.testsupport.TestServers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.jdbc.DatabaseDriver;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/**
 * The scripts of Shardscan's own tables: every dialect's folder is there, every folder holds the
 * scripts {@link OwnSchema} lists, in the same version order, the Liquibase changelog applies each of them, and a folder's
 * scripts run twice in a row without an error, as {@code scan.jdbc.initialize-schema=always} runs
 * them on every start.
 */
class OwnSchemaTests {

    @Test
    void everyFolderHoldsTheListedScriptsInVersionOrder() throws IOException {
        assertThat(folders()).contains("postgresql", "mysql");
        for (String folder : folders()) {
            Resource[] found = new PathMatchingResourcePatternResolver()
                    .getResources("classpath*:" + OwnSchema.LOCATION + "/" + folder + "/*.sql");
            List<String> names = Arrays.stream(found)
                    .map(resource -> Objects.requireNonNull(resource.getFilename()))
                    .sorted(Comparator.comparingInt(OwnSchemaTests::version))
                    .toList();
            assertThat(names).as(folder).isEqualTo(OwnSchema.SCRIPTS);
        }
        assertThat(OwnSchema.SCRIPTS).isSortedAccordingTo(Comparator.comparingInt(OwnSchemaTests::version));
    }

    @Test
    void theLiquibaseChangelogAppliesEveryScriptOfEveryFolderOnce() throws IOException {
        String changelog = new DefaultResourceLoader()
                .getResource("classpath:" + OwnSchema.LIQUIBASE_CHANGELOG)
                .getContentAsString(StandardCharsets.UTF_8);
        List<String> paths = Pattern.compile("path: (\\S+)")
                .matcher(changelog)
                .results()
                .map(match -> match.group(1))
                .toList();
        assertThat(paths)
                .containsExactlyInAnyOrderElementsOf(folders().stream()
                        .flatMap(folder -> OwnSchema.SCRIPTS.stream()
                                .map(script -> OwnSchema.LOCATION + "/" + folder + "/" + script))
                        .toList());
    }

    /** A dialect of Shardscan's names a folder that holds the scripts: a new database's dialect needs its own, or another's. */
    @Test
    void everyDialectsFolderIsThere() throws IOException {
        for (DatabaseDriver driver : DatabaseDriver.values()) {
            SqlDialect dialect = SqlDialect.forDriver(driver);
            if (dialect != null) {
                assertThat(folders()).as(driver + "'s dialect").contains(dialect.migrationFolder());
            }
        }
    }

    @Test
    void h2RunsThePostgresqlFolder() {
        assertThat(OwnSchema.folder(SqlDialect.forProduct("H2"))).isEqualTo("io/shardscan/db/migration/postgresql");
        assertThat(OwnSchema.folder(SqlDialect.forProduct("MariaDB"))).isEqualTo("io/shardscan/db/migration/mysql");
    }

    @Test
    void aFoldersScriptsRunTwiceAndLeaveEveryTableTheChecksAskFor() {
        DataSource dataSource = TestServers.h2("own_schema_twice");
        ResourceDatabasePopulator populator = new ResourceDatabasePopulator();
        OwnSchema.scriptLocations(SqlDialect.detect(dataSource))
                .forEach(location -> populator.addScript(new DefaultResourceLoader().getResource(location)));
        populator.execute(dataSource);
        populator.execute(dataSource);
        assertThat(OwnTables.problems(dataSource, true, true, true, true)).isEmpty();
    }

    /** The folders under {@link OwnSchema#LOCATION} that hold scripts: one per database, or per family of them. */
    private static Set<String> folders() throws IOException {
        Set<String> folders = new TreeSet<>();
        for (Resource script : new PathMatchingResourcePatternResolver()
                .getResources("classpath*:" + OwnSchema.LOCATION + "/*/*.sql")) {
            String path = script.getURL().getPath();
            String folder = path.substring(0, path.lastIndexOf('/'));
            folders.add(folder.substring(folder.lastIndexOf('/') + 1));
        }
        return folders;
    }

    /** The version of a script named {@code V<n>__<what>.sql}. */
    private static int version(String script) {
        return Integer.parseInt(script.substring(1, script.indexOf("__")));
    }
}
