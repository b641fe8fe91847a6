package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.ScanClock;
import io.shardscan.core.StaticShardCoordinator;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.CuttableCoordinator;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.RedisServerHandle;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Startup says which coordinator the engine uses and why. The auto-configuration logs through
 * {@link System.Logger}, which on the test class path is java.util.logging.
 */
@ServerTests
class CoordinatorChoiceLogTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, ScanAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + OrderDatabase.create());

    @RegisterExtension
    final CapturedLog log = new CapturedLog(ScanAutoConfiguration.class.getName());

    @Test
    void startupSaysAutoChoseJdbcBecauseNoRedisIsConfigured() {
        runner.run(context -> assertThat(infoLines())
                .singleElement()
                .asString()
                .startsWith("Shardscan coordinates through jdbc: scan.coordinator=auto chose it because no Redis"
                        + " connection is configured"));
    }

    @Test
    void startupSaysAutoChoseStaticBecauseNodeCountIsSet() {
        runner.withPropertyValues("scan.node-index=1", "scan.node-count=3").run(context -> assertThat(infoLines())
                .singleElement()
                .asString()
                .startsWith("Shardscan coordinates through static: scan.coordinator=auto chose it because"
                        + " scan.node-count=3 is set (this is node 1)"));
    }

    @Test
    void startupSaysTheCoordinatorWasAskedFor() {
        runner.withPropertyValues("scan.coordinator=jdbc").run(context -> assertThat(infoLines())
                .containsExactly("Shardscan coordinates through jdbc: scan.coordinator=jdbc"));
    }

    @Test
    void startupSaysAutoChoseRedisBecauseAConnectionIsConfigured() {
        RedisServerHandle redis = TestServers.redis();
        runner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port())
                .run(context -> assertThat(infoLines())
                        .singleElement()
                        .asString()
                        .startsWith("Shardscan coordinates through redis: scan.coordinator=auto chose it because a"
                                + " Redis connection is configured"));
    }

    @Test
    void startupNamesTheApplicationsOwnCoordinator() {
        ShardCoordinator own = new CuttableCoordinator(new StaticShardCoordinator(0, 1, ScanClock.system()));
        runner.withBean(ShardCoordinator.class, () -> own).run(context -> assertThat(infoLines())
                .containsExactly("Shardscan coordinates through static: the application's own"
                        + " ShardCoordinator bean (io.shardscan.testsupport.CuttableCoordinator)"));
    }

    @Test
    void startupWarnsWhenThePoolWaitsForAConnectionLongerThanAThirdOfTheLeaseTtl() {
        JdbcEndpoint postgres = TestServers.postgresEndpoint("coordinator_log");
        runner.withPropertyValues(
                        "spring.datasource.url=" + postgres.url(),
                        "spring.datasource.username=" + postgres.user(),
                        "spring.datasource.password=" + postgres.password())
                .run(
                        context -> assertThat(log.warnings())
                                .singleElement()
                                .asString()
                                .startsWith(
                                        "Shardscan's JDBC leases wait up to spring.datasource.hikari.connection-timeout (30000 ms)"
                                                + " for a connection from the pool, longer than a third of scan.lease-ttl (PT6S)")
                                .endsWith(
                                        "Set spring.datasource.hikari.connection-timeout to at most 2000 ms (a third of"
                                                + " scan.lease-ttl, as the Redis coordinator bounds its calls; Hikari's minimum is 250 ms)"));
    }

    @Test
    void startupDoesNotWarnAboutThePoolOfADatabaseInThisJvm() {
        runner.run(context -> assertThat(log.warnings()).isEmpty());
    }

    @Test
    void startupDoesNotWarnWhenThePoolsConnectionTimeoutFitsTheLeaseTtl() {
        runner.withPropertyValues("spring.datasource.hikari.connection-timeout=2000")
                .run(context -> assertThat(log.warnings()).isEmpty());
    }

    @Test
    void startupDoesNotWarnAboutThePoolWithoutJdbcLeases() {
        runner.withPropertyValues("scan.node-index=1", "scan.node-count=3")
                .run(context -> assertThat(log.warnings()).isEmpty());
    }

    private List<String> infoLines() {
        return log.messages(Level.INFO);
    }
}
