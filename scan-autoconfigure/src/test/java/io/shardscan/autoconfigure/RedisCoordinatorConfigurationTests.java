package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions.RefreshTrigger;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.redis.RedisShardCoordinator;
import io.shardscan.testsupport.RedisServerHandle;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Which coordinator Spring Data Redis on (or off) the class path and its connection details lead to. */
@ServerTests
class RedisCoordinatorConfigurationTests {

    private final RedisServerHandle redis = TestServers.redis();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class, DataRedisAutoConfiguration.class, ScanAutoConfiguration.class))
            .withPropertyValues(
                    "spring.datasource.url=" + OrderDatabase.create(), "scan.lease-ttl=3s", "scan.renew-interval=1s");

    @Test
    void choosesJdbcWithoutRedisOnTheClassPath() {
        runner.withClassLoader(new FilteredClassLoader("org.springframework.data.redis", "io.lettuce"))
                .withPropertyValues("spring.data.redis.host=" + redis.host())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(RedisConnectionFactory.class);
                    assertThat(context).doesNotHaveBean(ScanRedisConnection.class);
                    assertThat(context).getBean(ShardCoordinator.class).isInstanceOf(JdbcShardCoordinator.class);
                });
    }

    @Test
    void usesRedisConnectionDetailsOfACustomBean() {
        runner.withBean(DataRedisConnectionDetails.class, () -> new DataRedisConnectionDetails() {
                    @Override
                    public Standalone getStandalone() {
                        return Standalone.of(redis.host(), redis.port(), 3);
                    }
                })
                .run(context -> {
                    assertThat(context).getBean(ShardCoordinator.class).isInstanceOf(RedisShardCoordinator.class);
                    LettuceConnectionFactory factory = (LettuceConnectionFactory)
                            context.getBean(ScanRedisConnection.class).connectionFactory();
                    assertThat(factory.getPort()).isEqualTo(redis.port());
                    assertThat(factory.getDatabase()).isEqualTo(3);
                    assertThat(context.getBean(ShardCoordinator.class)
                                    .heartbeat("details-bean", "node-1", Duration.ofSeconds(6)))
                            .singleElement()
                            .satisfies(member -> assertThat(member.node()).isEqualTo("node-1"));
                });
    }

    @Test
    void boundsItsCommandTimeoutBelowTheLeaseTtlWhateverTheApplicationsTimeout() {
        runner.withPropertyValues(
                        "spring.data.redis.host=" + redis.host(),
                        "spring.data.redis.port=" + redis.port(),
                        "spring.data.redis.timeout=60s",
                        "spring.data.redis.connect-timeout=60s")
                .run(context -> {
                    LettuceClientConfiguration own =
                            context.getBean(ScanRedisConnection.class).clientConfiguration();
                    assertThat(own.getCommandTimeout()).isEqualTo(Duration.ofSeconds(1));
                    assertThat(own.getClientOptions()
                                    .orElseThrow()
                                    .getSocketOptions()
                                    .getConnectTimeout())
                            .isEqualTo(Duration.ofSeconds(1));
                    // after a long outage it reconnects within the command timeout, not Lettuce's 30 s
                    assertThat(own.getClientResources()
                                    .orElseThrow()
                                    .reconnectDelay()
                                    .createDelay(30))
                            .isEqualTo(Duration.ofSeconds(1));
                    // the application's own client keeps what it configured
                    LettuceConnectionFactory application =
                            (LettuceConnectionFactory) context.getBean(RedisConnectionFactory.class);
                    assertThat(application.getClientConfiguration().getCommandTimeout())
                            .isEqualTo(Duration.ofSeconds(60));
                });
    }

    @Test
    void refreshesTheTopologyOfAClusterWhateverTheApplicationsClientDoes() {
        // nothing listens there: the clients connect on first use
        runner.withPropertyValues("spring.data.redis.cluster.nodes=127.0.0.1:1,127.0.0.1:2")
                .run(context -> {
                    LettuceClientConfiguration own =
                            context.getBean(ScanRedisConnection.class).clientConfiguration();
                    assertThat(own.getClientOptions().orElseThrow())
                            .isInstanceOfSatisfying(ClusterClientOptions.class, options -> {
                                ClusterTopologyRefreshOptions refresh = options.getTopologyRefreshOptions();
                                assertThat(refresh.getAdaptiveRefreshTriggers())
                                        .containsExactlyInAnyOrder(RefreshTrigger.values());
                                assertThat(refresh.getAdaptiveRefreshTimeout()).isEqualTo(Duration.ofSeconds(1));
                                assertThat(refresh.isPeriodicRefreshEnabled()).isTrue();
                                assertThat(refresh.getRefreshPeriod()).isEqualTo(Duration.ofSeconds(3));
                            });
                    // Boot's client refreshes only when spring.data.redis.lettuce.cluster.refresh.* say so
                    LettuceConnectionFactory application =
                            (LettuceConnectionFactory) context.getBean(RedisConnectionFactory.class);
                    assertThat(((ClusterClientOptions) application
                                            .getClientConfiguration()
                                            .getClientOptions()
                                            .orElseThrow())
                                    .getTopologyRefreshOptions()
                                    .isPeriodicRefreshEnabled())
                            .isFalse();
                });
    }

    @Test
    void aLeaseCallOnAHungRedisFailsWithinAThirdOfTheTtl() {
        runner.withPropertyValues(
                        "spring.data.redis.host=" + redis.host(),
                        "spring.data.redis.port=" + redis.port(),
                        "spring.data.redis.timeout=60s")
                .run(context -> {
                    ShardCoordinator coordinator = context.getBean(ShardCoordinator.class);
                    coordinator.heartbeat("hung-redis", "node-1", Duration.ofSeconds(6));
                    RedisConnectionFactory application = context.getBean(RedisConnectionFactory.class);
                    // CLIENT PAUSE holds every other client's commands on the server: a Redis that hangs
                    try (RedisConnection connection = application.getConnection()) {
                        connection.execute("CLIENT", bytes("PAUSE"), bytes("3000"));
                    }
                    long started = System.nanoTime();
                    assertThatExceptionOfType(QueryTimeoutException.class)
                            .isThrownBy(() -> coordinator.heartbeat("hung-redis", "node-1", Duration.ofSeconds(6)));
                    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(2500));
                    await().ignoreExceptions().untilAsserted(() -> assertThat(
                                    coordinator.heartbeat("hung-redis", "node-1", Duration.ofSeconds(6)))
                            .isNotEmpty());
                });
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
