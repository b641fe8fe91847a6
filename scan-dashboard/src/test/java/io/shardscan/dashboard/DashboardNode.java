package io.shardscan.dashboard;

import io.shardscan.core.ScanEngine;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.RedisServerHandle;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One node of the dashboard's test cluster: {@link DashboardTestApp} with Tomcat on a random port,
 * the dashboard on, rows in the given database, leases in the given Redis.
 */
final class DashboardNode implements AutoCloseable {

    private final ConfigurableApplicationContext context;
    private final int port;

    private DashboardNode(ConfigurableApplicationContext context) {
        this.context = context;
        this.port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
    }

    /** Starts node {@code id}; only a node with {@code writeEnabled} accepts the dashboard's writes. */
    static DashboardNode start(String id, JdbcEndpoint db, RedisServerHandle redis, boolean writeEnabled) {
        return start(id, db, redis, writeEnabled, 64);
    }

    /** The same with the task's {@code shards}. */
    static DashboardNode start(String id, JdbcEndpoint db, RedisServerHandle redis, boolean writeEnabled, int shards) {
        List<String> properties = new ArrayList<>(List.of(
                "server.port=0",
                "spring.datasource.url=" + db.url(),
                "spring.datasource.username=" + db.user(),
                "spring.datasource.password=" + db.password(),
                "spring.data.redis.host=" + redis.host(),
                "spring.data.redis.port=" + redis.port(),
                "spring.data.redis.timeout=500ms",
                "scan.node-id=" + id,
                "scan.lease-ttl=2s",
                "scan.renew-interval=500ms",
                "scan.backlog-refresh=500ms",
                "scan.jdbc.initialize-schema=never",
                "scan.dashboard.enabled=true",
                "scan.dashboard.rate-sample=1s",
                "scan.dashboard.write-enabled=" + writeEnabled));
        properties.addAll(List.of(DashboardTestApp.taskProperties(shards)));
        return new DashboardNode(new SpringApplicationBuilder(DashboardTestApp.class)
                .properties(properties.toArray(String[]::new))
                .run());
    }

    /** The dashboard's address on this node. */
    String dashboardUrl() {
        return "http://localhost:" + port + "/scan/";
    }

    ScanEngine engine() {
        return context.getBean(ScanEngine.class);
    }

    @Override
    public void close() {
        context.close();
    }
}
