package io.shardscan.autoconfigure;

import io.shardscan.core.ScanClock;
import io.shardscan.core.ShardCoordinator;
import io.shardscan.core.StaticShardCoordinator;
import io.shardscan.jdbc.JdbcShardCoordinator;
import javax.sql.DataSource;

/** Picks the shard coordinator that {@code scan.coordinator}, {@code scan.node-index} and {@code scan.node-count} ask for. */
final class ScanCoordinators {

    private ScanCoordinators() {}

    static ShardCoordinator create(ScanProperties properties, DataSource dataSource, ScanClock clock) {
        return switch (properties.getCoordinator()) {
            case STATIC -> staticCoordinator(properties, clock);
            case JDBC -> new JdbcShardCoordinator(dataSource);
            case AUTO ->
                properties.getNodeCount() != null
                        ? staticCoordinator(properties, clock)
                        : new JdbcShardCoordinator(dataSource);
            case REDIS ->
                throw new IllegalStateException("scan.coordinator=redis needs a RedisConnectionFactory bean: add"
                        + " spring-boot-starter-data-redis and set spring.data.redis.host (or url), or choose"
                        + " scan.coordinator=jdbc");
        };
    }

    private static ShardCoordinator staticCoordinator(ScanProperties properties, ScanClock clock) {
        Integer count = properties.getNodeCount();
        Integer index = properties.getNodeIndex();
        if (count == null || index == null) {
            throw new IllegalStateException("static sharding needs both scan.node-index and scan.node-count (were "
                    + index + " and " + count + "): number the nodes 0..count-1 and set both on every node");
        }
        return new StaticShardCoordinator(index, count, clock);
    }
}
