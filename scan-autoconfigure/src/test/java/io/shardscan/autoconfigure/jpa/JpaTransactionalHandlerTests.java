package io.shardscan.autoconfigure.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.annotation.ScanTask;
import io.shardscan.autoconfigure.ScanAutoConfiguration;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.testsupport.CuttableCoordinator;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * A transactional handler in a Spring Data JPA application on PostgreSQL: its repository save and
 * the fenced write-back of its row are one transaction of the application's
 * {@link JpaTransactionManager}, committed together, rolled back together, and refused together
 * when a newer owner fenced the shard off.
 */
@ServerTests
class JpaTransactionalHandlerTests {

    private static final String DB = "scan_jpa";
    private static final String TASK = "scan.tasks.orders.";
    private static final Duration TTL = Duration.ofSeconds(2);
    private static final Duration RENEW = Duration.ofMillis(300);

    @RegisterExtension
    final Engines engines = new Engines();

    final DataSource dataSource = TestServers.postgresDatabase(DB);
    OrderTable table;

    @BeforeEach
    void setUp() {
        table = new OrderTable(dataSource).recreate(1, true).coordinationTables();
        table.jdbc().execute("DROP TABLE IF EXISTS receipt");
    }

    private ApplicationContextRunner app() {
        JdbcEndpoint db = TestServers.postgresEndpoint(DB);
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        HibernateJpaAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        DataJpaRepositoriesAutoConfiguration.class,
                        ScanAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + db.url(),
                        "spring.datasource.username=" + db.user(),
                        "spring.datasource.password=" + db.password(),
                        "spring.jpa.hibernate.ddl-auto=update",
                        "scan.node-id=node-a",
                        "scan.lease-ttl=" + TTL.toMillis() + "ms",
                        "scan.renew-interval=" + RENEW.toMillis() + "ms",
                        TASK + "table=tb_order",
                        TASK + "id-column=order_id",
                        TASK + "shard-key-column=user_id",
                        TASK + "shards=1",
                        TASK + "index-check=off")
                .withUserConfiguration(JpaApp.class);
    }

    @Test
    void aRepositorySaveCommitsWithTheRowsWriteBack() {
        table.insert(20, 7, Instant.now());
        app().withBean(AfterSave.class, () -> orderId -> {}).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(PlatformTransactionManager.class)).isInstanceOf(JpaTransactionManager.class);
            await().atMost(TestTime.scaled(Duration.ofSeconds(20))).until(() -> table.count("status = 1") == 20);
            assertThat(context.getBean(Receipts.class).count()).isEqualTo(20);
        });
    }

    @Test
    void aThrowAfterTheSaveRollsBothBack() {
        table.insert(1, 1, Instant.now());
        app().withBean(AfterSave.class, () -> orderId -> {
                    throw new IllegalStateException("the receiver said no");
                })
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    // the first attempt failed: the row waits for its retry, and its receipt is gone with it
                    await().atMost(TestTime.scaled(Duration.ofSeconds(20)))
                            .until(() -> table.count("retry_count >= 1") == 1);
                    assertThat(table.count("status = 0 AND last_error LIKE '%the receiver said no%'"))
                            .isEqualTo(1);
                    assertThat(context.getBean(Receipts.class).count()).isZero();
                });
    }

    @Test
    void aStaleOwnersSaveIsRolledBackByTheFence() {
        table.insert(1, 1, Instant.now());
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CuttableCoordinator cut = new CuttableCoordinator(new JdbcShardCoordinator(dataSource));
        app().withBean(ShardCoordinator.class, () -> cut)
                .withBean(AfterSave.class, () -> orderId -> {
                    entered.countDown();
                    release.await(30, TimeUnit.SECONDS);
                })
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ScanEngine a = context.getBean(ScanEngine.class);
                    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
                    long epochA = a.task("orders").ownedShards().get(0);
                    cut.cut();
                    ScanEngine b = engines.start(
                            "node-b",
                            dataSource,
                            new JdbcShardCoordinator(dataSource),
                            new ScanEngine.ScanTask(orders(), (TaskHandler.PerRow) (row, ctx) -> Outcome.done(), true),
                            ScanClock.system(),
                            ScanListener.NONE,
                            TTL,
                            RENEW);
                    b.task("orders").pause();
                    await().until(() -> b.task("orders").ownedShards().containsKey(0));
                    assertThat(b.task("orders").ownedShards().get(0)).isGreaterThan(epochA);
                    release.countDown();
                    await().until(() -> a.task("orders").stats().inFlight() == 0);
                    assertThat(a.task("orders").stats().processed()).isZero();
                    assertThat(table.count("order_id = 1 AND status = 0 AND retry_count = 0"))
                            .isEqualTo(1);
                    assertThat(context.getBean(Receipts.class).count()).isZero();
                });
    }

    private static TaskDefinition orders() {
        return TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(1)
                .build();
    }

    /** What the handler does after its save: nothing, throw, or wait for a take-over. */
    interface AfterSave {
        void run(long orderId) throws Exception;
    }

    record Order(long orderId, long userId) {}

    @Configuration(proxyBeanMethods = false)
    @AutoConfigurationPackage
    @Import(Handler.class)
    static class JpaApp {}

    static class Handler {

        private final Receipts receipts;
        private final AfterSave afterSave;

        Handler(Receipts receipts, AfterSave afterSave) {
            this.receipts = receipts;
            this.afterSave = afterSave;
        }

        @ScanTask(value = "orders", transactional = true)
        public void handle(Order order) throws Exception {
            receipts.save(new Receipt(order.orderId(), "node-a"));
            afterSave.run(order.orderId());
        }
    }
}
