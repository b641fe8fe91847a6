package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import io.shardscan.actuate.ScanHealthIndicator;
import io.shardscan.annotation.ScanTask;
import io.shardscan.core.ForeignFence;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.task.InvalidTaskException;
import io.shardscan.testsupport.RedisServerHandle;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Two applications on two databases share one Redis and a task name (staging and production on one
 * Redis, or two services that both call their task {@code order-sms}): each is a cluster of its own,
 * whose node holds all 16 shards and runs every row of its own database. Before Redis keys were
 * namespaced by the application and its database, the two were one cluster of two nodes: 8 shards
 * each, half of each database's rows never run, health UP.
 */
@ServerTests
class SharedRedisTests {

    static final int ROWS = 64;

    private final RedisServerHandle redis = TestServers.redis();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class, DataRedisAutoConfiguration.class, ScanAutoConfiguration.class))
            .withBean(Sms.class)
            .withPropertyValues(
                    "spring.data.redis.host=" + redis.host(),
                    "spring.data.redis.port=" + redis.port(),
                    "scan.lease-ttl=3s",
                    "scan.renew-interval=1s",
                    "scan.tasks.order-sms.table=tb_order",
                    "scan.tasks.order-sms.id-column=order_id",
                    "scan.tasks.order-sms.shard-key-column=user_id",
                    "scan.tasks.order-sms.shards=16");

    @Test
    void twoApplicationsOnTwoDatabasesAreTwoClustersThatRunEveryRowOfTheirOwn() {
        String name = "spring.application.name=orders-" + System.nanoTime();
        runner.withPropertyValues("spring.datasource.url=" + OrderDatabase.create(), name)
                .run(first -> runner.withPropertyValues("spring.datasource.url=" + OrderDatabase.create(), name)
                        .run(second -> {
                            for (ConfigurableApplicationContext context : List.of(first, second)) {
                                insertRows(context);
                            }
                            for (ConfigurableApplicationContext context : List.of(first, second)) {
                                JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
                                await().until(() -> jdbc.queryForObject(
                                                "SELECT COUNT(*) FROM tb_order WHERE status = 1", Integer.class)
                                        == ROWS);
                                assertThat(context.getBean(Sms.class).sent).hasSize(ROWS);
                                assertThat(context.getBean(ScanEngine.class)
                                                .task("order-sms")
                                                .ownedShards())
                                        .hasSize(16);
                            }
                        }));
    }

    /**
     * The case a namespace cannot prevent: one {@code scan.redis.namespace} set on two applications on
     * two databases makes them one cluster again, 8 shards each; each names the other as a member that
     * runs another database, and goes DOWN.
     */
    @Test
    void oneNamespaceOnTwoDatabasesIsOneClusterThatEachSideNamesAndGoesDown() {
        String namespace = "scan.redis.namespace=shared-" + System.nanoTime();
        runner.withPropertyValues("spring.datasource.url=" + OrderDatabase.create(), namespace, "scan.node-id=node-a")
                .run(first -> runner.withPropertyValues(
                                "spring.datasource.url=" + OrderDatabase.create(), namespace, "scan.node-id=node-b")
                        .run(second -> {
                            await().until(() -> List.of(first, second).stream()
                                    .allMatch(context -> context.getBean(ScanEngine.class)
                                                    .task("order-sms")
                                                    .ownedShards()
                                                    .size()
                                            == 8));
                            for (ConfigurableApplicationContext context : List.of(first, second)) {
                                ScanEngine engine = context.getBean(ScanEngine.class);
                                String other = engine.nodeId().equals("node-a") ? "node-b" : "node-a";
                                await().until(() -> engine.task("order-sms").recentForeignFence() != null);
                                ForeignFence foreign = engine.task("order-sms").recentForeignFence();
                                assertThat(foreign.otherDatabase()).isTrue();
                                assertThat(foreign.node()).isEqualTo(other);
                                Health health = new ScanHealthIndicator(engine).health(true);
                                assertThat(health.getStatus()).isEqualTo(Status.DOWN);
                                assertThat(health.getDetails().toString())
                                        .contains("node " + other + " holds shard")
                                        .contains("has not raised the shard's fence in this database")
                                        .contains("scan.redis.namespace");
                            }
                        }));
    }

    @Test
    void theNamespaceIsTheApplicationAndItsDatabaseWithoutCredentialsOrParameters() {
        assertThat(ScanRedisNamespace.identity("jdbc:postgresql://db.internal:5432/orders?user=app&password=secret"))
                .isEqualTo("postgresql://db.internal:5432/orders");
        assertThat(ScanRedisNamespace.identity("jdbc:mysql://app:secret@db:3306/orders"))
                .isEqualTo("mysql://db:3306/orders");
        assertThat(ScanRedisNamespace.identity("jdbc:h2:mem:orders;DB_CLOSE_DELAY=-1"))
                .isEqualTo("h2:mem:orders");
        assertThatExceptionOfType(InvalidTaskException.class)
                .isThrownBy(() -> ScanRedisNamespace.resolve("a{b}", null, TestServers.h2("namespace")))
                .withMessageContaining("scan.redis.namespace");
    }

    private static void insertRows(ConfigurableApplicationContext context) {
        JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
        for (long id = 1; id <= ROWS; id++) {
            jdbc.update(
                    "INSERT INTO tb_order (order_id, user_id, updated_at) VALUES (?, ?, CURRENT_TIMESTAMP)", id, id);
        }
    }

    static class Sms {
        final List<Long> sent = new CopyOnWriteArrayList<>();

        @ScanTask("order-sms")
        public void send(OrderRow order) {
            sent.add(order.orderId());
        }
    }

    record OrderRow(long orderId, long userId) {}
}
