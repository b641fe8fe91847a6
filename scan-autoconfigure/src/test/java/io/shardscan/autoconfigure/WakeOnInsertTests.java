package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.annotation.ScanTask;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.task.InvalidTaskException;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.LeaseTicks;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code wake-on-insert} on PostgreSQL: startup prints the trigger's DDL (and creates nothing); once
 * it is applied, a row another application inserts with plain SQL is handled at once, not at tier 0's
 * next poll a minute later. Elsewhere the property fails startup.
 */
@ServerTests
class WakeOnInsertTests {

    private static final String TASK = "scan.tasks.orders.";
    static final Map<Long, Long> handledAt = new ConcurrentHashMap<>();

    @RegisterExtension
    final CapturedLog log = new CapturedLog(WakeOnInsertCheck.class.getName());

    private static ApplicationContextRunner runner(JdbcEndpoint db) {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DataSourceAutoConfiguration.class, ScanAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + db.url(),
                        "spring.datasource.username=" + db.user(),
                        "spring.datasource.password=" + db.password(),
                        "scan.jdbc.initialize-schema=always",
                        TASK + "table=tb_order",
                        TASK + "id-column=order_id",
                        TASK + "shard-key-column=user_id",
                        TASK + "shards=4",
                        TASK + "tiers[0].retries=0",
                        TASK + "tiers[0].interval=60s",
                        TASK + "wake-on-insert=true")
                .withUserConfiguration(Handler.class);
    }

    @Test
    void theStartupCheckPrintsTheTriggerAndARowInsertedWithPlainSqlWakesItsOwner() {
        JdbcEndpoint db = TestServers.postgresEndpoint("wake_on_insert");
        OrderTable table = new OrderTable(TestServers.postgresDatabase("wake_on_insert"))
                .recreate(4, true)
                .coordinationTables();
        table.jdbc().execute("DROP TRIGGER IF EXISTS scan_wake_orders ON tb_order");
        handledAt.clear();
        runner(db).run(context -> {
            assertThat(context).hasNotFailed();
            String warning = log.warnings().stream()
                    .filter(w -> w.contains("wake-on-insert"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no wake-on-insert warning in " + log.messages()));
            assertThat(warning)
                    .contains("scan.tasks.orders.wake-on-insert is true, but tb_order has no trigger scan_wake_orders")
                    .contains("CREATE TRIGGER scan_wake_orders AFTER INSERT ON tb_order");
            ScanEngine engine = context.getBean(ScanEngine.class);
            await("the node holds every shard")
                    .until(() -> engine.task("orders").ownedShards().size() == 4);
            // every tier ran its first pass and rests for a minute
            engine.task("orders").drain(Duration.ofSeconds(30));
            insert(table, 1);
            // without the trigger the row waits for tier 0's poll: the node's ticks wake its dispatcher,
            // which finds no tier due (the interval is a minute)
            LeaseTicks.awaitNext(2, engine.task("orders"));
            assertThat(handledAt).doesNotContainKey(1L);

            List<String> ddl = Arrays.stream(
                            warning.substring(warning.indexOf("run:\n") + 5).split(";\n"))
                    .map(s -> s.endsWith(";") ? s.substring(0, s.length() - 1) : s)
                    .toList();
            ddl.forEach(table.jdbc()::execute);
            long insertedAt = System.nanoTime();
            insert(table, 2);

            await("the trigger wakes the owner").until(() -> handledAt.containsKey(2L));
            Duration pickup = Duration.ofNanos(handledAt.get(2L) - insertedAt);
            System.out.printf("WakeOnInsertTests: picked up %d ms after the insert%n", pickup.toMillis());
            assertThat(pickup).isLessThan(Duration.ofSeconds(5));
        });
    }

    @Test
    void wakeOnInsertOutsidePostgresqlFailsStartup() {
        new OrderTable(TestServers.h2("wake_on_insert")).recreate(4, true);
        runner(TestServers.h2Endpoint("wake_on_insert")).run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            while (failure != null && !(failure instanceof InvalidTaskException)) {
                failure = failure.getCause();
            }
            assertThat(failure)
                    .isNotNull()
                    .hasMessageContaining("scan.tasks.orders.wake-on-insert is true, but only PostgreSQL can notify");
        });
    }

    private static void insert(OrderTable table, long id) {
        // as another application would: plain SQL, no Shardscan call
        table.jdbc()
                .update(
                        "INSERT INTO tb_order (order_id, user_id, phone, updated_at) VALUES (?, ?, '+1555', now())",
                        id,
                        id + 4);
    }

    record Order(long orderId, long userId) {}

    static class Handler {
        @ScanTask("orders")
        public void send(Order order) {
            handledAt.putIfAbsent(order.orderId(), System.nanoTime());
        }
    }
}
