package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.WakeChannel;
import io.shardscan.jdbc.PostgresWakeChannel;
import io.shardscan.redis.RedisWakeChannel;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.RedisServerHandle;
import io.shardscan.testsupport.TestServers;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Which wake-up transport the coordinator and the database lead to. */
class WakeChannelChoiceTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class, DataRedisAutoConfiguration.class, ScanAutoConfiguration.class));

    @Test
    void h2HasNoTransport() {
        runner.withPropertyValues("spring.datasource.url=" + OrderDatabase.create())
                .run(context -> assertThat(context).getBean(WakeChannel.class).isSameAs(WakeChannel.NONE));
    }

    @Test
    void postgresqlWithJdbcCoordinationListensForNotify() {
        JdbcEndpoint db = TestServers.postgresEndpoint("wake_choice");
        TestServers.postgresDatabase("wake_choice");
        runner.withPropertyValues(
                        "spring.datasource.url=" + db.url(),
                        "spring.datasource.username=" + db.user(),
                        "spring.datasource.password=" + db.password(),
                        "scan.jdbc.initialize-schema=always")
                .run(context -> assertThat(context).getBean(WakeChannel.class).isInstanceOf(PostgresWakeChannel.class));
    }

    @Test
    void redisCoordinationPublishesThroughRedis() {
        RedisServerHandle redis = TestServers.redis();
        runner.withPropertyValues(
                        "spring.datasource.url=" + OrderDatabase.create(),
                        "spring.data.redis.host=" + redis.host(),
                        "spring.data.redis.port=" + redis.port())
                .run(context -> assertThat(context).getBean(WakeChannel.class).isInstanceOf(RedisWakeChannel.class));
    }
}
