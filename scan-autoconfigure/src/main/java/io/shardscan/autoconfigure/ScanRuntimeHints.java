package io.shardscan.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * The resources read at run time, for a native image: the Redis coordinator's Lua scripts, the
 * scripts of Shardscan's own tables (run by its initializers) and the Liquibase changelog that
 * applies them (read by the application's Liquibase). Registered through
 * {@code META-INF/spring/aot.factories}, so it applies whichever beans the application keeps.
 */
public final class ScanRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources()
                .registerPattern("io/shardscan/redis/*.lua")
                .registerPattern("io/shardscan/db/migration/*/*.sql")
                .registerPattern("io/shardscan/db/changelog/*.yaml");
    }
}
