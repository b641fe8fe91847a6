package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

@ServerTests
class PostgresShardCoordinatorTests extends ShardCoordinatorContractTests {

    private final DataSource dataSource = TestServers.postgresDatabase("coordinator");

    @Override
    protected ShardCoordinator createCoordinator() {
        new OrderTable(dataSource).coordinationTables();
        return new JdbcShardCoordinator(dataSource);
    }

    @Override
    protected Counter createCounter(String name) {
        return new JdbcCounter(dataSource, name);
    }

    /**
     * The renewals run on a connection of their own, and a renewal that waits on a lock is cancelled
     * once past its call timeout (a third of the TTL), as every bounded statement is: it fails, it
     * does not hang the node's renewals until the lock goes.
     */
    @Test
    void aRenewalWaitingOnALockIsCancelledPastItsCallTimeout() throws Exception {
        ShardCoordinator coordinator = createCoordinator();
        Duration ttl = Duration.ofSeconds(3);
        long epoch =
                coordinator.tryAcquire("locked", 0, "node-a", ttl).orElseThrow().epoch();
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try (Connection locker = dataSource.getConnection()) {
            locker.setAutoCommit(false);
            locker.createStatement().execute("LOCK TABLE scan_lease IN ACCESS EXCLUSIVE MODE");
            long start = System.nanoTime();
            Future<?> renewal =
                    caller.submit(() -> coordinator.renewAll("node-a", Map.of("locked", Map.of(0, epoch)), ttl));
            // the call timeout is 1 s, the watcher looks every 100 ms; the kept connection and a fresh one
            // each wait it out; without a bound the call would wait for the lock, held here until the end
            assertThatThrownBy(() -> renewal.get(15, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("how long the renewal waited on the lock")
                    .isGreaterThanOrEqualTo(Duration.ofSeconds(1));
            locker.rollback();
        } finally {
            caller.shutdownNow();
        }
    }

    @Override
    protected void storeCounters(String task, String node, String encoded) {
        new org.springframework.jdbc.core.JdbcTemplate(dataSource)
                .update("UPDATE scan_member SET counters = ? WHERE task = ? AND node = ?", encoded, task, node);
    }
}
