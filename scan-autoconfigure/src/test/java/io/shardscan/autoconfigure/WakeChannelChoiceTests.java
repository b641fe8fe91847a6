package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.spi.WakeChannel;
import io.shardscan.jdbc.PostgresWakeChannel;
import io.shardscan.redis.RedisWakeChannel;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.RedisServerHandle;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Which wake-up transport the coordinator and the database lead to. */
@ServerTests
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

    @Test
    void redisCoordinationOnPostgresqlSaysWhetherItListensForInsertTriggers() {
        JdbcEndpoint db = TestServers.postgresEndpoint("wake_choice");
        DataSource dataSource = TestServers.postgresDatabase("wake_choice");
        LettuceConnectionFactory connection = new LettuceConnectionFactory(new RedisStandaloneConfiguration(
                TestServers.redis().host(), TestServers.redis().port()));
        ScanProperties without = new ScanProperties();
        without.getTasks().put("order-sms", new TaskProperties());
        ScanProperties with = new ScanProperties();
        TaskProperties wakeOnInsert = new TaskProperties();
        wakeOnInsert.setWakeOnInsert(true);
        with.getTasks().put("order-sms", wakeOnInsert);

        assertThat(ScanWakeChannels.redis(new RedisWakeChannel(connection), dataSource, without)
                        .description())
                .as("a node without wake-on-insert, db %s", db.url())
                .startsWith("redis: pub/sub")
                .contains("not listening on scan_wake for insert triggers")
                .contains("set it on every node");
        assertThat(ScanWakeChannels.redis(new RedisWakeChannel(connection), dataSource, with)
                        .description())
                .startsWith("redis: pub/sub")
                .contains("listening for insert triggers (wake-on-insert) through postgresql: LISTEN/NOTIFY on"
                        + " scan_wake");
        assertThat(ScanWakeChannels.database(dataSource).description())
                .contains("LISTEN/NOTIFY on scan_wake")
                .contains("insert triggers' notifications included");
    }
}
