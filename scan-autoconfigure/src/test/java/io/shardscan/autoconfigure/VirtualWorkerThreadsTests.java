package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.annotation.ScanTask;
import io.shardscan.testsupport.CapturedLog;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code spring.threads.virtual.enabled=true} puts the handlers on virtual threads, each task still
 * at most its {@code workers} at once. Needs Java 21: the {@code java21} tag keeps these tests out of
 * the JDK 17 passes, and {@code mvn verify} runs them in the second JDK's pass, with the rest of the
 * slice that holds this package (see scan-autoconfigure's pom).
 */
@Tag("java21")
@EnabledForJreRange(min = JRE.JAVA_21)
class VirtualWorkerThreadsTests {

    static final int WORKERS = 2;
    static final int ROWS = 40;

    static final Set<Boolean> virtual = ConcurrentHashMap.newKeySet();
    static final AtomicInteger running = new AtomicInteger();
    static final AtomicInteger mostAtOnce = new AtomicInteger();

    @RegisterExtension
    final CapturedLog log = new CapturedLog(ScanAutoConfiguration.class.getName());

    private ApplicationContextRunner runner() {
        virtual.clear();
        mostAtOnce.set(0);
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DataSourceAutoConfiguration.class, ScanAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + ordersDatabase(),
                        "scan.tasks.orders.table=tb_order",
                        "scan.tasks.orders.id-column=order_id",
                        "scan.tasks.orders.shard-key-column=user_id",
                        "scan.tasks.orders.workers=" + WORKERS)
                .withUserConfiguration(Handler.class);
    }

    @Test
    void withVirtualThreadsEnabledTheHandlersRunOnVirtualThreadsWithinTheirWorkers() {
        runner().withPropertyValues("spring.threads.virtual.enabled=true").run(context -> {
            assertThat(context).hasNotFailed();
            String url = context.getEnvironment().getProperty("spring.datasource.url");
            await().until(() -> done(url) == ROWS);
            assertThat(virtual).containsExactly(true);
            assertThat(mostAtOnce.get()).isBetween(1, WORKERS);
            assertThat(log.messages(java.util.logging.Level.INFO))
                    .anyMatch(line -> line.startsWith(
                            "Shardscan's handlers run on virtual threads (spring.threads.virtual.enabled)"));
        });
    }

    @Test
    void withoutItTheyRunOnPlatformThreads() {
        runner().run(context -> {
            assertThat(context).hasNotFailed();
            String url = context.getEnvironment().getProperty("spring.datasource.url");
            await().until(() -> done(url) == ROWS);
            assertThat(virtual).containsExactly(false);
            assertThat(log.messages(java.util.logging.Level.INFO)).noneMatch(line -> line.contains("virtual"));
        });
    }

    private static String ordersDatabase() {
        String url = OrderDatabase.create();
        try (Connection connection = DriverManager.getConnection(url, "sa", "");
                PreparedStatement insert = connection.prepareStatement(
                        "INSERT INTO tb_order (order_id, user_id, updated_at) VALUES (?, ?, ?)")) {
            for (int id = 1; id <= ROWS; id++) {
                insert.setLong(1, id);
                insert.setLong(2, id % 7);
                insert.setTimestamp(3, Timestamp.from(Instant.now().minusSeconds(5)));
                insert.addBatch();
            }
            insert.executeBatch();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return url;
    }

    private static int done(String url) throws SQLException {
        try (Connection connection = DriverManager.getConnection(url, "sa", "");
                ResultSet rs =
                        connection.createStatement().executeQuery("SELECT COUNT(*) FROM tb_order WHERE status = 1")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** Whether the current thread is virtual: {@code Thread.isVirtual()} is Java 21, these sources Java 17. */
    static boolean currentThreadIsVirtual() {
        try {
            return (Boolean) Thread.class.getMethod("isVirtual").invoke(Thread.currentThread());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    record Order(long orderId, long userId) {}

    static class Handler {
        @ScanTask("orders")
        public void send(Order order) throws InterruptedException {
            virtual.add(currentThreadIsVirtual());
            mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                // simulated work: a handler's latency, so that calls overlap when more than the workers could run
                TimeUnit.MILLISECONDS.sleep(20);
            } finally {
                running.decrementAndGet();
            }
        }
    }
}
