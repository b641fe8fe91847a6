package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.testsupport.TestServers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/**
 * The scripts of Shardscan's own tables: every database's folder holds the scripts {@link OwnSchema}
 * lists, in the same version order, the Liquibase changelog applies each of them, and a folder's
 * scripts run twice in a row without an error, as {@code scan.jdbc.initialize-schema=always} runs
 * them on every start.
 */
class OwnSchemaTests {

    @Test
    void everyFolderHoldsTheListedScriptsInVersionOrder() throws IOException {
        for (String folder : List.of("postgresql", "mysql")) {
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
                .containsExactlyInAnyOrderElementsOf(List.of("postgresql", "mysql").stream()
                        .flatMap(folder -> OwnSchema.SCRIPTS.stream()
                                .map(script -> OwnSchema.LOCATION + "/" + folder + "/" + script))
                        .toList());
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

    /** The version of a script named {@code V<n>__<what>.sql}. */
    private static int version(String script) {
        return Integer.parseInt(script.substring(1, script.indexOf("__")));
    }
}
