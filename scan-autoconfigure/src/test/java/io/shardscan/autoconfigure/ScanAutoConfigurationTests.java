package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.annotation.ScanTask;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.SettableScanClock;
import io.shardscan.core.StaticShardCoordinator;
import io.shardscan.core.spi.BacklogCounts;
import io.shardscan.core.spi.FetchRequest;
import io.shardscan.core.spi.SchemaReport;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.spi.TaskAdmin;
import io.shardscan.core.spi.TaskControl;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.spi.WriteBack;
import io.shardscan.core.task.EndpointDownClassifier;
import io.shardscan.core.task.InvalidTaskException;
import io.shardscan.core.task.OnExhausted;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.RowKey;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.redis.RedisShardCoordinator;
import io.shardscan.testsupport.RedisServerHandle;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.annotation.Order;

@ServerTests
class ScanAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, ScanAutoConfiguration.class))
            .withPropertyValues(
                    "spring.datasource.url=" + OrderDatabase.create(),
                    "scan.lease-ttl=1s",
                    "scan.renew-interval=200ms");

    private final ApplicationContextRunner withTask = runner.withBean(OrderHandlers.class)
            .withPropertyValues(
                    "scan.tasks.order-sms.table=tb_order",
                    "scan.tasks.order-sms.id-column=order_id",
                    "scan.tasks.order-sms.shard-key-column=user_id");

    @Test
    void backsOffWhenDisabled() {
        runner.withPropertyValues("scan.enabled=false")
                .run(context ->
                        assertThat(context).doesNotHaveBean(ScanEngine.class).doesNotHaveBean(ScanProperties.class));
    }

    @Test
    void backsOffWithoutDataSource() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ScanAutoConfiguration.class))
                .run(context -> assertThat(context).doesNotHaveBean(ScanEngine.class));
    }

    @Test
    void runsOnJdbcByDefault() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(ScanEngine.class);
            assertThat(context).getBean(ShardCoordinator.class).isInstanceOf(JdbcShardCoordinator.class);
            assertThat(context).getBean(TaskStore.class).isInstanceOf(JdbcTaskStore.class);
            assertThat(context).getBean(ScanClock.class).isSameAs(ScanClock.system());
            assertThat(context).getBean(ScanListener.class).isInstanceOf(MdcScanListener.class);
            assertThat(context.getBean(ScanEngine.class).nodeId()).matches(".+-\\d+-[0-9a-f]{4}");
        });
    }

    @Test
    void aTestsSettableClockReplacesTheSystemClock() {
        SettableScanClock clock = new SettableScanClock(Instant.parse("2026-01-01T00:00:00Z"));
        runner.withBean("scanClock", ScanClock.class, () -> clock).run(context -> {
            assertThat(context).hasSingleBean(ScanEngine.class);
            assertThat(context).getBean(ScanClock.class).isSameAs(clock);
        });
    }

    /** A gateway's own "receiver down" exception, which the default classifier does not know. */
    static final class GatewayDownException extends RuntimeException {
        GatewayDownException() {
            super("503 from the store's gateway");
        }
    }

    @Test
    void anApplicationsEndpointDownClassifierAddsToTheDefault() {
        EndpointDownClassifier gateway =
                failure -> EndpointDownClassifier.Causes.any(failure, t -> t instanceof GatewayDownException);
        runner.withBean(EndpointDownClassifier.class, () -> gateway).run(context -> {
            EndpointDownClassifier used =
                    context.getBean(ScanEngineBuilder.class).settings().endpointDown();
            assertThat(used.endpointDown(new IllegalStateException("wrapped", new GatewayDownException())))
                    .isTrue();
            assertThat(used.endpointDown(new java.net.ConnectException("Connection refused")))
                    .isTrue();
            assertThat(used.endpointDown(new IllegalArgumentException("bad row")))
                    .isFalse();
        });
        runner.run(context -> assertThat(context.getBean(ScanEngineBuilder.class)
                        .settings()
                        .endpointDown()
                        .endpointDown(new GatewayDownException()))
                .isFalse());
    }

    @Test
    void shardsStaticallyWhenNodeCountIsSet() {
        runner.withPropertyValues("scan.node-index=1", "scan.node-count=3").run(context -> {
            assertThat(context).getBean(ShardCoordinator.class).isInstanceOf(StaticShardCoordinator.class);
            assertThat(context.getBean(ShardCoordinator.class).assign("n", List.of(), new String[7]))
                    .containsExactly(1, 4);
        });
    }

    @Test
    void failsWhenStaticModeLacksNodeIndex() {
        runner.withPropertyValues("scan.coordinator=static", "scan.node-count=2")
                .run(context -> assertThat(context.getStartupFailure())
                        .rootCause()
                        // the type Boot's failure analysis prints as APPLICATION FAILED TO START
                        .isInstanceOf(InvalidTaskException.class)
                        .hasMessageContaining("static sharding needs both scan.node-index and scan.node-count"));
    }

    @Test
    void coordinatesThroughRedisWhenItIsConfigured() {
        RedisServerHandle redis = TestServers.redis();
        runner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port())
                .run(context ->
                        assertThat(context).getBean(ShardCoordinator.class).isInstanceOf(RedisShardCoordinator.class));
    }

    @Test
    void staysOnJdbcWhenRedisIsOnlyOnTheClasspath() {
        runner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
                .run(context ->
                        assertThat(context).getBean(ShardCoordinator.class).isInstanceOf(JdbcShardCoordinator.class));
    }

    @Test
    void jdbcCoordinatorWinsWhenAskedForDespiteRedis() {
        runner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
                .withPropertyValues("scan.coordinator=jdbc", "spring.data.redis.host=127.0.0.1")
                .run(context ->
                        assertThat(context).getBean(ShardCoordinator.class).isInstanceOf(JdbcShardCoordinator.class));
    }

    @Test
    void failsWhenRedisIsAskedForWithoutAConnectionFactory() {
        runner.withPropertyValues("scan.coordinator=redis").run(context -> assertThat(context.getStartupFailure())
                .rootCause()
                .isInstanceOf(InvalidTaskException.class)
                .hasMessageContaining("scan.coordinator=redis needs Spring Data Redis with Lettuce"));
    }

    @Test
    void keepsUserDefinedBeans() {
        ShardCoordinator coordinator = new StaticShardCoordinator(0, 1, ScanClock.system());
        TaskStore store = new AcceptingStore();
        ScanClock clock = new FixedClock();
        ScanListener listener = new ScanListener() {};
        runner.withBean(ShardCoordinator.class, () -> coordinator)
                .withBean(TaskStore.class, () -> store)
                .withBean(ScanClock.class, () -> clock)
                .withBean(ScanListener.class, () -> listener)
                .run(context -> {
                    assertThat(context).getBean(ShardCoordinator.class).isSameAs(coordinator);
                    assertThat(context).getBean(TaskStore.class).isSameAs(store);
                    assertThat(context).getBean(ScanClock.class).isSameAs(clock);
                    assertThat(context.getBeansOfType(ScanListener.class).values())
                            .containsExactlyInAnyOrder(listener, context.getBean(MdcScanListener.class));
                    assertThat(context.getBean(ScanEngine.class).coordinator()).isSameAs(coordinator);
                });
    }

    @Test
    void putsNoMdcListenerWithoutSlf4j() {
        runner.withClassLoader(new FilteredClassLoader("org.slf4j"))
                .run(context ->
                        assertThat(context).hasSingleBean(ScanEngine.class).doesNotHaveBean(ScanListener.class));
    }

    @Test
    void appliesCustomizersInOrder() {
        runner.withPropertyValues("scan.node-id=configured")
                .withBean("second", ScanEngineCustomizer.class, () -> new Rename("second", "first"))
                .withBean("first", ScanEngineCustomizer.class, () -> new FirstRename())
                .run(context ->
                        assertThat(context.getBean(ScanEngine.class).nodeId()).isEqualTo("second"));
    }

    @Test
    void aRunningEngineKeepsTheJvmUpUntilTheContextCloses() {
        // an application without a web server: only this thread keeps the JVM up once main returns
        withTask.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(keepAliveThreads()).singleElement().matches(thread -> !thread.isDaemon());
        });
        await().until(() -> keepAliveThreads().isEmpty());
    }

    private static List<Thread> keepAliveThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().equals("scan-keep-alive") && thread.isAlive())
                .toList();
    }

    @Test
    void startsAnnotatedTaskAfterRefreshAndStopsItOnClose() {
        AtomicReference<ScanEngine> engine = new AtomicReference<>();
        withTask.withPropertyValues(
                        "scan.tasks.order-sms.on-exhausted=keep-retrying",
                        "scan.tasks.order-sms.tiers[0].retries=0",
                        "scan.tasks.order-sms.tiers[0].interval=1s",
                        "scan.tasks.order-sms.tiers[1].retries=1-3",
                        "scan.tasks.order-sms.tiers[1].interval=10s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    engine.set(context.getBean(ScanEngine.class));
                    assertThat(engine.get().isRunning()).isTrue();
                    assertThat(context.getBean(ScanLifecycle.class).isRunning()).isTrue();
                    TaskDefinition definition = engine.get().task("order-sms").definition();
                    assertThat(definition.columns().shardKey()).isEqualTo("user_id");
                    assertThat(definition.onExhausted()).isEqualTo(OnExhausted.KEEP_RETRYING);
                    assertThat(definition.tiers())
                            .containsExactly(
                                    new Tier(0, 0, Duration.ofSeconds(1)), new Tier(1, 3, Duration.ofSeconds(10)));
                });
        assertThat(engine.get().isRunning()).isFalse();
    }

    @Test
    void createsSchemaOnEmbeddedDatabase() {
        runner.run(context -> assertThat(ScanTables.present(context)).isTrue());
    }

    @Test
    void skipsSchemaWhenToldNeverAndThenFailsNamingTheSetting() {
        runner.withPropertyValues("scan.jdbc.initialize-schema=never").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .rootCause()
                    .hasMessageContaining("Shardscan's table scan_fence does not exist")
                    .hasMessageContaining("scan.jdbc.initialize-schema=always")
                    .hasMessageContaining("io/shardscan/db/migration/postgresql");
        });
    }

    static class OrderHandlers {
        @ScanTask("order-sms")
        public void send(OrderRow order) {}
    }

    record OrderRow(long orderId, long userId) {}

    static class Rename implements ScanEngineCustomizer {
        private final String name;
        private final String expectedBefore;

        Rename(String name, String expectedBefore) {
            this.name = name;
            this.expectedBefore = expectedBefore;
        }

        @Override
        public void customize(ScanEngineBuilder builder) {
            assertThat(builder.nodeId()).isEqualTo(expectedBefore);
            builder.nodeId(name);
        }
    }

    @Order(1)
    static class FirstRename extends Rename {
        FirstRename() {
            super("first", "configured");
        }
    }

    static final class FixedClock implements ScanClock {
        @Override
        public Instant now() {
            return Instant.parse("2024-05-01T12:00:00Z");
        }

        @Override
        public long nanos() {
            return System.nanoTime();
        }
    }

    static final class AcceptingStore implements TaskStore {
        @Override
        public SchemaReport inspect(TaskDefinition task) {
            return new SchemaReport(true, List.of(), true, List.of(), null);
        }

        @Override
        public List<Row> fetch(TaskDefinition task, FetchRequest request) {
            return List.of();
        }

        @Override
        public List<RowKey> failedRows(TaskDefinition task, int shard) {
            return List.of();
        }

        @Override
        public long fence(TaskDefinition task, int shard, String owner) {
            return 1;
        }

        @Override
        public boolean writeBack(TaskDefinition task, WriteBack batch) {
            return true;
        }

        @Override
        public int archive(TaskDefinition task, int shard, long epoch) {
            return 0;
        }

        @Override
        public TaskAdmin admin() {
            return new TaskAdmin() {
                @Override
                public BacklogCounts countBacklog(TaskDefinition task) {
                    return new BacklogCounts(List.of(), 0, 0);
                }

                @Override
                public int requeueDead(TaskDefinition task) {
                    return 0;
                }
            };
        }

        @Override
        public TaskControl control() {
            return new TaskControl() {
                @Override
                public boolean pausedEverywhere(TaskDefinition task) {
                    return false;
                }

                @Override
                public void pauseEverywhere(TaskDefinition task, boolean paused, String by, Instant at) {}
            };
        }

        @Override
        public boolean inTransaction(TransactionalWork work) throws Exception {
            return work.run();
        }
    }
}
