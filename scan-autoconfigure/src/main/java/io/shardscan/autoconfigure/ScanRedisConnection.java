package io.shardscan.autoconfigure;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.shardscan.core.EngineSettings;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails.Node;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.RedisStaticMasterReplicaConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Redis coordinator's own Lettuce connection to the server that the application's {@link
 * DataRedisConnectionDetails} name (from {@code spring.data.redis.*}, {@code @ServiceConnection},
 * Docker Compose or a bean of the application's), with command and connect timeouts of a third of
 * the lease TTL and, on a cluster, a topology that follows failovers. Deliberately not a {@code RedisConnectionFactory} bean, so the application's
 * single-candidate injection, templates and health indicator stay as they were.
 *
 * <p>Why a connection of its own rather than bounding each call on the application's factory: a
 * Lettuce command's timeout belongs to the connection it runs on. A deadline put around a call from
 * outside (a future awaited for TTL/3) returns early but leaves the command queued on the shared
 * connection until the application's timeout (Lettuce's default is 60 s), where it delays the
 * application's own commands and our next renewals, and a Jedis or pooled factory cannot be bounded
 * that way at all. A client of our own makes Lettuce itself cancel a lease call after TTL/3, so a
 * node sees a Redis outage, stops dispatching and fences itself well within one lease TTL, and the
 * application's client keeps the timeouts it chose.
 */
final class ScanRedisConnection implements DisposableBean {

    private static final System.Logger log = System.getLogger(ScanRedisConnection.class.getName());

    private final ClientResources resources;
    private final LettuceConnectionFactory connectionFactory;
    private final String namespace;

    ScanRedisConnection(DataRedisConnectionDetails details, Duration leaseTtl, String namespace) {
        Objects.requireNonNull(details, "details");
        this.namespace = Objects.requireNonNull(namespace, "namespace");
        Duration timeout = commandTimeout(leaseTtl);
        RedisConfiguration server = serverConfiguration(details);
        // Lettuce's default reconnect delay doubles up to 30 s: after a long outage the node would
        // go on idling for up to 30 s with Redis back; bounded by the command timeout, it rejoins
        // within a third of the TTL
        this.resources = DefaultClientResources.builder()
                .reconnectDelay(Delay.exponential(Duration.ofMillis(100), timeout, 2, TimeUnit.MILLISECONDS))
                .build();
        this.connectionFactory = new LettuceConnectionFactory(
                server, clientConfiguration(details, leaseTtl, server instanceof RedisClusterConfiguration, resources));
        connectionFactory.afterPropertiesSet();
        // connects lazily: a Redis that is down at startup does not fail the application
        connectionFactory.start();
        log.log(
                System.Logger.Level.INFO,
                "Shardscan's Redis keys: scan:{" + (namespace.isEmpty() ? "" : namespace + "/") + "<task>}:..."
                        + " (scan.redis.namespace; by default spring.application.name and the database's URL):"
                        + " every node of the application must have the same");
    }

    /** What the keys of every task start with, in their hash tag; empty for {@code scan:{task}:...}. */
    String namespace() {
        return namespace;
    }

    /** How long one lease call may wait for Redis ({@link EngineSettings#callTimeout(Duration)}). */
    static Duration commandTimeout(Duration leaseTtl) {
        return EngineSettings.callTimeout(leaseTtl);
    }

    RedisConnectionFactory connectionFactory() {
        return connectionFactory;
    }

    LettuceClientConfiguration clientConfiguration() {
        return connectionFactory.getClientConfiguration();
    }

    @Override
    public void destroy() {
        connectionFactory.destroy();
        resources.shutdown();
    }

    private static LettuceClientConfiguration clientConfiguration(
            DataRedisConnectionDetails details, Duration leaseTtl, boolean cluster, ClientResources resources) {
        Duration timeout = commandTimeout(leaseTtl);
        ClientOptions.Builder options = cluster
                ? ClusterClientOptions.builder().topologyRefreshOptions(topologyRefresh(leaseTtl))
                : ClientOptions.builder();
        options.socketOptions(SocketOptions.builder().connectTimeout(timeout).build());
        LettuceClientConfiguration.LettuceClientConfigurationBuilder builder =
                LettuceClientConfiguration.builder().commandTimeout(timeout).clientResources(resources);
        SslBundle ssl = details.getSslBundle();
        if (ssl != null) {
            builder.useSsl();
            options.sslOptions(sslOptions(ssl));
        }
        return builder.clientOptions(options.build()).build();
    }

    /**
     * Lettuce learns a cluster's topology once, when it connects, unless told to refresh it (Boot's
     * {@code spring.data.redis.lettuce.cluster.refresh.*} configure only the application's client, and
     * are off by default): after a master fails over, the lease calls of the tasks whose keys are in its
     * slots would go on timing out against the dead node, and those tasks would run nothing until the
     * application restarts ({@code RedisClusterFailoverTests} fails without this). The adaptive triggers
     * refresh when a node stays unreachable, on a MOVED or ASK redirection and on an unknown node, at
     * most once per call timeout, so that a refresh that came before the replica was promoted is soon
     * repeated; the periodic one, once per lease TTL, catches what no trigger sees. The lease calls
     * reached the promoted replica about a second after its promotion in that test; the leases survive
     * when the promotion comes within the lease TTL (Redis's {@code cluster-node-timeout} is 15 s by
     * default, longer than the 6 s TTL: then they lapse and the nodes claim the shards again).
     */
    private static ClusterTopologyRefreshOptions topologyRefresh(Duration leaseTtl) {
        return ClusterTopologyRefreshOptions.builder()
                .enableAllAdaptiveRefreshTriggers()
                .adaptiveRefreshTriggersTimeout(commandTimeout(leaseTtl))
                .enablePeriodicRefresh(leaseTtl)
                .build();
    }

    // as Spring Boot's LettuceConnectionConfiguration applies a bundle
    private static SslOptions sslOptions(SslBundle bundle) {
        SslOptions.Builder builder = SslOptions.builder()
                .keyManager(bundle.getManagers().getKeyManagerFactory())
                .trustManager(bundle.getManagers().getTrustManagerFactory());
        if (bundle.getOptions().getCiphers() != null) {
            builder.cipherSuites(bundle.getOptions().getCiphers());
        }
        if (bundle.getOptions().getEnabledProtocols() != null) {
            builder.protocols(bundle.getOptions().getEnabledProtocols());
        }
        return builder.build();
    }

    static RedisConfiguration serverConfiguration(DataRedisConnectionDetails details) {
        RedisPassword password = RedisPassword.of(details.getPassword());
        DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
        if (sentinel != null) {
            RedisSentinelConfiguration config = new RedisSentinelConfiguration();
            config.master(sentinel.getMaster());
            sentinel.getNodes().forEach(node -> config.sentinel(node.host(), node.port()));
            config.setSentinelUsername(sentinel.getUsername());
            config.setSentinelPassword(RedisPassword.of(sentinel.getPassword()));
            config.setDatabase(sentinel.getDatabase());
            config.setUsername(details.getUsername());
            config.setPassword(password);
            return config;
        }
        DataRedisConnectionDetails.Cluster cluster = details.getCluster();
        if (cluster != null) {
            RedisClusterConfiguration config = new RedisClusterConfiguration();
            cluster.getNodes().forEach(node -> config.clusterNode(node.host(), node.port()));
            config.setUsername(details.getUsername());
            config.setPassword(password);
            return config;
        }
        List<Node> replicas = masterReplicaNodes(details);
        DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
        if (!replicas.isEmpty()) {
            Node first = replicas.get(0);
            RedisStaticMasterReplicaConfiguration config =
                    new RedisStaticMasterReplicaConfiguration(first.host(), first.port());
            replicas.stream().skip(1).forEach(node -> config.node(node.host(), node.port()));
            config.setUsername(details.getUsername());
            config.setPassword(password);
            if (standalone != null) {
                config.setDatabase(standalone.getDatabase());
            }
            return config;
        }
        Objects.requireNonNull(standalone, "DataRedisConnectionDetails names no server");
        RedisStandaloneConfiguration config =
                new RedisStandaloneConfiguration(standalone.getHost(), standalone.getPort());
        config.setDatabase(standalone.getDatabase());
        config.setUsername(details.getUsername());
        config.setPassword(password);
        return config;
    }

    private static List<Node> masterReplicaNodes(DataRedisConnectionDetails details) {
        DataRedisConnectionDetails.@Nullable MasterReplica masterReplica = details.getMasterReplica();
        return masterReplica == null ? List.of() : masterReplica.getNodes();
    }
}
