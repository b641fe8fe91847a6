package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.spi.Lease;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Claiming a lease provokes no duplicate key in the database, so a driver that logs each one
 * (MariaDB's logs a WARN) stays quiet: every SQL error a statement raises is recorded through a
 * proxy of the data source.
 */
@ServerTests
class LeaseClaimTests {

    static final Duration TTL = Duration.ofSeconds(30);

    final List<SQLException> errors = new CopyOnWriteArrayList<>();

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql", "mariadb"})
    void claimingAHeldShardRaisesNoSqlError(String database) {
        JdbcShardCoordinator coordinator = new JdbcShardCoordinator(recording(dataSource(database)));
        String task = "t" + System.nanoTime();
        for (int shard = 0; shard < 8; shard++) {
            assertThat(coordinator.tryAcquire(task, shard, "a", TTL)).isPresent();
        }
        for (int attempt = 0; attempt < 20; attempt++) {
            for (int shard = 0; shard < 8; shard++) {
                assertThat(coordinator.tryAcquire(task, shard, "b", TTL)).isEmpty();
            }
        }
        assertThat(errors).isEmpty();
    }

    /** H2 has no INSERT that skips an existing key outside its compatibility modes; it logs nothing either. */
    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void nodesRacingForTheFirstLeasesOfAShardRaiseNoSqlError(String database) throws Exception {
        DataSource dataSource = recording(dataSource(database));
        String task = "t" + System.nanoTime();
        int nodes = 6;
        int shards = 32;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(nodes);
        try {
            List<Future<List<Integer>>> claimed = new ArrayList<>();
            for (int n = 0; n < nodes; n++) {
                String node = "node-" + n;
                JdbcShardCoordinator coordinator = new JdbcShardCoordinator(dataSource);
                claimed.add(pool.submit(() -> {
                    start.await();
                    List<Integer> mine = new ArrayList<>();
                    for (int shard = 0; shard < shards; shard++) {
                        Optional<Lease> lease = coordinator.tryAcquire(task, shard, node, TTL);
                        lease.ifPresent(l -> mine.add(l.shard()));
                    }
                    return mine;
                }));
            }
            start.countDown();
            List<Integer> all = new ArrayList<>();
            for (Future<List<Integer>> future : claimed) {
                all.addAll(future.get());
            }
            assertThat(all).as("each shard granted once").hasSize(shards).doesNotHaveDuplicates();
        } finally {
            pool.shutdownNow();
        }
        assertThat(errors).isEmpty();
    }

    private static DataSource dataSource(String database) {
        DataSource dataSource =
                switch (database) {
                    case "h2" -> TestServers.h2("leaseclaim");
                    case "postgresql" -> TestServers.postgresDatabase("leaseclaim");
                    default -> TestServers.mariadbDatabase("leaseclaim");
                };
        new OrderTable(dataSource).coordinationTables();
        return dataSource;
    }

    /** {@code target}, recording every SQL error a statement of it raises. */
    private DataSource recording(DataSource target) {
        return proxy(DataSource.class, target);
    }

    @SuppressWarnings("unchecked")
    private <T> T proxy(Class<T> type, T target) {
        return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            Object result;
            try {
                result = method.invoke(target, args);
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof SQLException sql && Statement.class.isAssignableFrom(type)) {
                    errors.add(sql);
                }
                throw e.getCause();
            }
            if (result instanceof Connection connection && method.getReturnType() == Connection.class) {
                return proxy(Connection.class, connection);
            }
            if (result != null
                    && Statement.class.isAssignableFrom(method.getReturnType())
                    && method.getReturnType().isInterface()) {
                return proxy((Class<Object>) method.getReturnType(), result);
            }
            return result;
        });
    }
}
