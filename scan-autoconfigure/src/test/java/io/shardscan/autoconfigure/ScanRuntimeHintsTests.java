package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

/** Every script Shardscan reads at run time is in the runtime hints a native image is built with. */
class ScanRuntimeHintsTests {

    @Test
    void registersEveryLuaScriptMigrationAndChangelog() throws IOException {
        RuntimeHints hints = new RuntimeHints();
        AotServices.factories().load(RuntimeHintsRegistrar.class).stream()
                .filter(ScanRuntimeHints.class::isInstance)
                .forEach(registrar -> registrar.registerHints(hints, getClass().getClassLoader()));
        List<String> scripts = scripts(
                "io/shardscan/redis/*.lua", "io/shardscan/db/migration/*/*.sql", "io/shardscan/db/changelog/*.yaml");
        assertThat(scripts)
                .contains(
                        "io/shardscan/redis/acquire.lua",
                        "io/shardscan/db/migration/postgresql/V1__create_tables.sql",
                        "io/shardscan/db/migration/mysql/V1__create_tables.sql",
                        "io/shardscan/db/migration/postgresql/V2__schedule_firings.sql",
                        "io/shardscan/db/migration/mysql/V2__schedule_firings.sql",
                        "io/shardscan/db/migration/postgresql/V3__fence_shards.sql",
                        "io/shardscan/db/migration/mysql/V3__fence_shards.sql",
                        "io/shardscan/db/changelog/shardscan.yaml");
        assertThat(scripts).allSatisfy(script -> assertThat(
                        RuntimeHintsPredicates.resource().forResource(script))
                .as(script)
                .accepts(hints));
        assertThat(RuntimeHintsPredicates.resource().forResource("io/shardscan/jdbc/TableNames.class"))
                .as("no more than the scripts")
                .rejects(hints);
    }

    /** The scripts on the class path, by their resource names. */
    private static List<String> scripts(String... patterns) throws IOException {
        PathMatchingResourcePatternResolver resolver = new PathMatchingResourcePatternResolver();
        return Arrays.stream(patterns)
                .flatMap(pattern -> {
                    try {
                        return Arrays.stream(resolver.getResources("classpath*:" + pattern));
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                })
                .map(ScanRuntimeHintsTests::name)
                .toList();
    }

    private static String name(Resource resource) {
        try {
            String url = resource.getURL().toString();
            return url.substring(url.indexOf("io/shardscan/"));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
