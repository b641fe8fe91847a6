package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A real deadlock on MariaDB: two transactions lock two rows in opposite orders, InnoDB rolls one
 * back, and {@link Rerun} runs it again, so both writes land.
 */
@ServerTests
class RerunTests {

    private final DataSource dataSource = TestServers.mariadbDatabase("rerun");
    private final JdbcTemplate jdbc = new JdbcTemplate(dataSource);
    private final TransactionTemplate transactions =
            new TransactionTemplate(new DataSourceTransactionManager(dataSource));

    @BeforeEach
    void setUp() {
        jdbc.execute("DROP TABLE IF EXISTS rerun_counter");
        jdbc.execute("CREATE TABLE rerun_counter (id INT PRIMARY KEY, hits INT NOT NULL)");
        jdbc.update("INSERT INTO rerun_counter VALUES (1, 0), (2, 0)");
    }

    @Test
    void aDeadlocksVictimRunsAgainAndBothTransactionsLand() throws Exception {
        CyclicBarrier bothHoldTheirFirstRow = new CyclicBarrier(2);
        AtomicInteger runs = new AtomicInteger();
        ExecutorService two = Executors.newFixedThreadPool(2);
        try {
            Future<?> first = two.submit(() -> lockInOrder(1, 2, bothHoldTheirFirstRow, runs));
            Future<?> second = two.submit(() -> lockInOrder(2, 1, bothHoldTheirFirstRow, runs));
            first.get(60, TimeUnit.SECONDS);
            second.get(60, TimeUnit.SECONDS);
        } finally {
            two.shutdownNow();
        }

        assertThat(runs).as("the victim ran twice").hasValue(3);
        assertThat(jdbc.queryForList("SELECT hits FROM rerun_counter ORDER BY id", Integer.class))
                .as("each transaction's two increments, once")
                .containsExactly(2, 2);
    }

    private void lockInOrder(int one, int other, CyclicBarrier together, AtomicInteger runs) {
        Rerun.onDeadlock(() -> transactions.execute(status -> {
            boolean firstRun = runs.incrementAndGet() <= 2;
            jdbc.update("UPDATE rerun_counter SET hits = hits + 1 WHERE id = ?", one);
            if (firstRun) {
                await(together);
            }
            return jdbc.update("UPDATE rerun_counter SET hits = hits + 1 WHERE id = ?", other);
        }));
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
