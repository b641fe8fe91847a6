package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.actuate.ScanHealthAutoConfiguration;
import io.shardscan.actuate.ScanHealthIndicator;
import io.shardscan.annotation.ScanTask;
import io.shardscan.core.ScanEngine;
import io.shardscan.redis.RedisShardCoordinator;
import io.shardscan.testsupport.LeaseTicks;
import io.shardscan.testsupport.RedisServerHandle;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

/** Redis is down when the application starts: it starts anyway, says so, processes nothing, and recovers. */
@ServerTests
class RedisDownAtStartupTests {

    private final RedisServerHandle redis = TestServers.redis();

    @AfterEach
    void restartRedis() {
        if (redis.isManaged()) {
            redis.start();
        }
    }

    @Test
    void startsDownProcessesNothingWithoutALeaseAndRecoversWhenRedisReturns() {
        Assumptions.assumeTrue(redis.isManaged(), "needs a Redis the tests can stop");
        String url = OrderDatabase.create();
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        DataRedisAutoConfiguration.class,
                        ScanAutoConfiguration.class,
                        ScanHealthAutoConfiguration.class))
                .withBean(Jobs.class)
                .withPropertyValues(
                        "spring.datasource.url=" + url,
                        "spring.data.redis.host=" + redis.host(),
                        "spring.data.redis.port=" + redis.port(),
                        "spring.data.redis.timeout=300ms",
                        "scan.lease-ttl=2s",
                        "scan.renew-interval=500ms",
                        "scan.tasks.orders.table=tb_order",
                        "scan.tasks.orders.id-column=order_id",
                        "scan.tasks.orders.shard-key-column=user_id",
                        "scan.tasks.orders.shards=8")
                .withInitializer(context -> redis.stop())
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(RedisShardCoordinator.class);
                    JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
                    insertOrders(jdbc, 200);
                    ScanHealthIndicator health = context.getBean(ScanHealthIndicator.class);
                    await().until(() -> health.health(false).getStatus().equals(Status.DOWN));
                    // its ticks go on failing against the stopped Redis, each waking the dispatcher:
                    // a row run without a lease would be done by now
                    LeaseTicks.awaitNext(2, context.getBean(ScanEngine.class).task("orders"));
                    assertThat(done(jdbc)).isZero();
                    assertThat(context.getBean(ScanEngine.class).task("orders").ownedShards())
                            .isEmpty();
                    redis.start();
                    await().until(() -> done(jdbc) == 200);
                    await().until(() -> health.health(false).getStatus().equals(Status.UP));
                });
    }

    private static int done(JdbcTemplate jdbc) {
        return jdbc.queryForObject("SELECT COUNT(*) FROM tb_order WHERE status = 1", Integer.class);
    }

    private static void insertOrders(JdbcTemplate jdbc, int count) {
        List<Object[]> rows = new ArrayList<>();
        for (long id = 1; id <= count; id++) {
            rows.add(new Object[] {id, id % 13, Timestamp.from(Instant.now())});
        }
        jdbc.batchUpdate("INSERT INTO tb_order (order_id, user_id, updated_at) VALUES (?, ?, ?)", rows);
    }

    static class Jobs {
        @ScanTask("orders")
        public void send(java.util.Map<String, Object> order) {}
    }
}
