package io.shardscan.autoconfigure;

import io.shardscan.core.ScanClock;
import io.shardscan.core.StaticShardCoordinator;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.task.InvalidTaskException;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.SqlDialect;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;
import javax.sql.DataSource;

/** Picks the shard coordinator that {@code scan.coordinator}, {@code scan.node-index} and {@code scan.node-count} ask for. */
final class ScanCoordinators {

    private static final Set<String> OWN = Set.of(
            "io.shardscan.jdbc.JdbcShardCoordinator",
            "io.shardscan.redis.RedisShardCoordinator",
            "io.shardscan.core.StaticShardCoordinator");

    private ScanCoordinators() {}

    /**
     * One line for the startup log: which coordinator the engine uses and why, so that a node that
     * silently fell back to JDBC leases (no Redis configured) or to static sharding says so.
     */
    static String explain(ScanProperties properties, ShardCoordinator coordinator) {
        String chosen = "Shardscan coordinates through " + coordinator.kind();
        if (!OWN.contains(coordinator.getClass().getName())) {
            return chosen + ": the application's own ShardCoordinator bean ("
                    + coordinator.getClass().getName() + ")";
        }
        if (properties.getCoordinator() != ScanProperties.Coordinator.AUTO) {
            return chosen + ": scan.coordinator="
                    + properties.getCoordinator().name().toLowerCase(Locale.ROOT);
        }
        String auto = chosen + ": scan.coordinator=auto chose it because ";
        return switch (coordinator.kind()) {
            case "redis" ->
                auto + "a Redis connection is configured (spring.data.redis.*) and scan.node-count is not"
                        + " set; scan.coordinator=jdbc keeps the leases in the database";
            case "static" ->
                auto + "scan.node-count=" + properties.getNodeCount() + " is set (this is node "
                        + properties.getNodeIndex() + "): no leases, no failover";
            default ->
                auto + "no Redis connection is configured (spring.data.redis.host or url) and"
                        + " scan.node-count is not set; leases live in the database's scan_lease table";
        };
    }

    /** The coordinator the properties ask for; {@code dialect} is asked for only by the JDBC coordinator. */
    static ShardCoordinator create(
            ScanProperties properties, DataSource dataSource, Supplier<SqlDialect> dialect, ScanClock clock) {
        return switch (properties.getCoordinator()) {
            case STATIC -> staticCoordinator(properties, clock);
            case JDBC -> new JdbcShardCoordinator(dataSource, dialect.get());
            case AUTO ->
                properties.getNodeCount() != null
                        ? staticCoordinator(properties, clock)
                        : new JdbcShardCoordinator(dataSource, dialect.get());
            case REDIS ->
                throw new InvalidTaskException("scan.coordinator=redis needs Spring Data Redis with Lettuce and"
                        + " Spring Boot's Redis connection details: add spring-boot-starter-data-redis and set"
                        + " spring.data.redis.host (or url), or choose scan.coordinator=jdbc");
        };
    }

    private static ShardCoordinator staticCoordinator(ScanProperties properties, ScanClock clock) {
        Integer count = properties.getNodeCount();
        Integer index = properties.getNodeIndex();
        if (count == null || index == null) {
            throw new InvalidTaskException("static sharding needs both scan.node-index and scan.node-count (were "
                    + index + " and " + count + "): number the nodes 0..count-1 and set both on every node");
        }
        try {
            return new StaticShardCoordinator(index, count, clock);
        } catch (IllegalArgumentException e) {
            throw new InvalidTaskException(e.getMessage());
        }
    }
}
