package io.shardscan.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * The resources Shardscan reads at run time, for a native image: the Redis coordinator's Lua
 * scripts and the schema scripts of the lease, member and fence tables. Registered through
 * {@code META-INF/spring/aot.factories}, so it applies whichever beans the application keeps.
 */
public final class ScanRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern("io/shardscan/redis/*.lua").registerPattern("io/shardscan/jdbc/schema-*.sql");
    }
}
