package io.shardscan.autoconfigure;

import com.zaxxer.hikari.HikariDataSource;
import io.shardscan.core.EngineSettings;
import io.shardscan.core.spi.ShardCoordinator;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.util.ClassUtils;

/**
 * Warns when JDBC leases may wait for a pool connection longer than a lease can wait. A lease tick
 * blocks in the pool's {@code getConnection} while the database is unreachable, for Hikari's
 * {@code connection-timeout} (30 s by default), much longer than {@code scan.lease-ttl} (6 s): a
 * statement timeout does not cover that wait. The Redis coordinator bounds its calls by a third of
 * the TTL; the application's pool is the application's to size, so this only says what to set.
 */
final class ScanConnectionTimeoutCheck {

    private static final String HIKARI = "com.zaxxer.hikari.HikariDataSource";

    private ScanConnectionTimeoutCheck() {}

    /** The warning for the startup log, or empty when the coordinator is not JDBC or the pool not Hikari or short enough. */
    static Optional<String> warning(ShardCoordinator coordinator, DataSource dataSource, Duration leaseTtl) {
        if (!"jdbc".equals(coordinator.kind())
                || !ClassUtils.isPresent(HIKARI, ScanConnectionTimeoutCheck.class.getClassLoader())) {
            return Optional.empty();
        }
        return Hikari.warning(dataSource, leaseTtl);
    }

    /** Whether {@code url} names a database that runs in this JVM: H2 in memory or in a file, not over TCP. */
    static boolean inProcess(String url) {
        return url != null
                && url.startsWith("jdbc:h2:")
                && !url.startsWith("jdbc:h2:tcp:")
                && !url.startsWith("jdbc:h2:ssl:");
    }

    /** Loaded only when Hikari is on the class path. */
    private static final class Hikari {

        static Optional<String> warning(DataSource dataSource, Duration leaseTtl) {
            HikariDataSource hikari;
            try {
                if (!dataSource.isWrapperFor(HikariDataSource.class)) {
                    return Optional.empty();
                }
                hikari = dataSource.unwrap(HikariDataSource.class);
            } catch (SQLException e) {
                return Optional.empty();
            }
            if (inProcess(hikari.getJdbcUrl())) {
                // a database in this JVM (the embedded H2) is never out of reach
                return Optional.empty();
            }
            Duration timeout = Duration.ofMillis(hikari.getConnectionTimeout());
            Duration bound = EngineSettings.callTimeout(leaseTtl);
            if (timeout.compareTo(bound) <= 0) {
                return Optional.empty();
            }
            return Optional.of("Shardscan's JDBC leases wait up to spring.datasource.hikari.connection-timeout ("
                    + timeout.toMillis() + " ms) for a connection from the pool, longer than a third of"
                    + " scan.lease-ttl (" + leaseTtl + "): while the database is unreachable a lease tick waits that"
                    + " long, its leases lapse meanwhile, and the node reports the coordinator unreachable only once"
                    + " the tick has waited scan.lease-ttl. Set spring.datasource.hikari.connection-timeout to at"
                    + " most " + Math.max(250, bound.toMillis()) + " ms (a third of scan.lease-ttl, as the Redis"
                    + " coordinator bounds its calls; Hikari's minimum is 250 ms)");
        }
    }
}
