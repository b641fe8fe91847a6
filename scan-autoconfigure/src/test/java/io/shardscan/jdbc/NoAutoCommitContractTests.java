package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.shardscan.core.spi.EndpointBan;
import io.shardscan.core.spi.FetchRequest;
import io.shardscan.core.spi.Lease;
import io.shardscan.core.spi.Member;
import io.shardscan.core.spi.Requeue;
import io.shardscan.core.spi.RunCounts;
import io.shardscan.core.spi.TaskRun;
import io.shardscan.core.spi.TaskRuns;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.spi.WriteBack;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.OrderTable;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The store on a pool whose connections do not autocommit (HikariCP's {@code autoCommit=false}, as
 * some applications configure it; db-scheduler checks the same in its compatibility tests): a pool
 * rolls back what a connection comes back with uncommitted, so every write of the store must commit
 * itself, also the ones it runs as single statements outside a transaction where connections
 * autocommit. Each change is read back through another pool, whose connections autocommit. One small
 * subclass per database.
 */
abstract class NoAutoCommitContractTests {

    static final int SHARDS = 4;
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    final TaskDefinition task = TaskDefinition.builder("orders")
            .table("tb_order")
            .idColumn("order_id")
            .shardKeyColumn("user_id")
            .shards(SHARDS)
            .build();

    OrderTable table;
    HikariDataSource noAutoCommit;
    TaskStore store;

    /** The database, for the pool whose connections do not autocommit. */
    abstract JdbcEndpoint endpoint();

    /** A pool on the same database whose connections autocommit: the tests' fixture and reader. */
    abstract DataSource autoCommitting();

    @BeforeEach
    void setUp() {
        table = new OrderTable(autoCommitting()).recreate(SHARDS, true).coordinationTables();
        table.insert(40, 1000, T0);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(endpoint().url());
        config.setUsername(endpoint().user());
        config.setPassword(endpoint().password());
        config.setAutoCommit(false);
        config.setMaximumPoolSize(4);
        noAutoCommit = new HikariDataSource(config);
        store = new JdbcTaskStore(noAutoCommit);
        assertThat(store.inspect(task).indexPresent()).isTrue();
    }

    @AfterEach
    void closePool() {
        noAutoCommit.close();
    }

    @Test
    void fetchesPendingRows() {
        assertThat(store.fetch(task, new FetchRequest(1, 0, 0, null, Long.MIN_VALUE, 100)))
                .extracting(Row::id)
                .containsExactly(1L, 5L, 9L, 13L, 17L, 21L, 25L, 29L, 33L, 37L);
    }

    @Test
    void aFenceCommits() {
        assertThat(store.fence(task, 1, "node-a")).isEqualTo(1);
        assertThat(store.fence(task, 1, "node-b")).isEqualTo(2);
        assertThat(table.jdbc().queryForMap("SELECT epoch, owner FROM scan_fence WHERE task = 'orders' AND shard = 1"))
                .containsValues(2L, "node-b");
    }

    @Test
    void aWriteBackOfDoneRowsCommits() {
        long epoch = store.fence(task, 1, "node-a");
        assertThat(store.writeBack(task, new WriteBack(1, epoch, T0, List.of(1L, 5L), List.of(), List.of())))
                .isTrue();
        assertThat(table.count("status = 1")).isEqualTo(2);
        assertThat(table.count("status = 1 AND order_id IN (1, 5)")).isEqualTo(2);
    }

    @Test
    void aWriteBackOfFailedAndDeadRowsCommits() {
        long epoch = store.fence(task, 1, "node-a");
        WriteBack batch = new WriteBack(
                1,
                epoch,
                T0,
                List.of(1L),
                List.of(new WriteBack.Failure(5, 1, "boom")),
                List.of(new WriteBack.Failure(9, 16, "gone")));
        assertThat(store.writeBack(task, batch)).isTrue();
        assertThat(table.count("order_id = 1 AND status = 1")).isOne();
        assertThat(table.count("order_id = 5 AND status = 0 AND retry_count = 1 AND last_error = 'boom'"))
                .isOne();
        assertThat(table.count("order_id = 9 AND status = 2 AND retry_count = 16"))
                .isOne();
    }

    @Test
    void aRequeueCommits() {
        table.jdbc().update("UPDATE tb_order SET status = 2, retry_count = 16 WHERE order_id IN (9, 13, 17)");
        assertThat(store.admin().requeue(task, Requeue.rows(true, List.of(9L)))).isOne();
        assertThat(table.count("order_id = 9 AND status = 0 AND retry_count = 0"))
                .isOne();
        assertThat(store.admin().requeueDead(task)).isEqualTo(2);
        assertThat(table.count("status = 2")).isZero();
    }

    @Test
    void aPauseCommits() {
        store.control().pauseEverywhere(task, true, "operator", T0);
        assertThat(table.jdbc().queryForObject("SELECT paused FROM scan_task WHERE task = 'orders'", Integer.class))
                .isOne();
        store.control().pauseEverywhere(task, false, "operator", T0);
        assertThat(store.control().pausedEverywhere(task)).isFalse();
        assertThat(table.jdbc().queryForObject("SELECT paused FROM scan_task WHERE task = 'orders'", Integer.class))
                .isZero();
    }

    /**
     * The JDBC coordinator on the same pool: a heartbeat, a lease and its renewal are single statements of
     * its own, which the pool would roll back; another node must see them.
     */
    @Test
    void aHeartbeatALeaseAndItsRenewalCommit() {
        JdbcShardCoordinator coordinator = new JdbcShardCoordinator(noAutoCommit);
        JdbcShardCoordinator other = new JdbcShardCoordinator(autoCommitting());
        try {
            coordinator.heartbeat("orders", "node-a", Duration.ofSeconds(30));
            Lease lease = coordinator
                    .tryAcquire("orders", 1, "node-a", Duration.ofSeconds(30))
                    .orElseThrow();
            assertThat(coordinator.renew("orders", "node-a", Map.of(1, lease.epoch()), Duration.ofSeconds(30)))
                    .containsExactly(1);

            assertThat(other.heartbeat("orders", "node-b", Duration.ofSeconds(30)))
                    .extracting(Member::node)
                    .contains("node-a");
            assertThat(other.leases("orders"))
                    .filteredOn(info -> info.shard() == 1)
                    .singleElement()
                    .satisfies(info -> assertThat(info.owner()).isEqualTo("node-a"));
            assertThat(other.tryAcquire("orders", 1, "node-b", Duration.ofSeconds(30)))
                    .isEmpty();
        } finally {
            coordinator.close();
            other.close();
        }
    }

    /** The endpoint bans on the same pool: a trip and a ban written by one node count for another. */
    @Test
    void anEndpointTripAndBanCommit() {
        JdbcEndpointBans bans = new JdbcEndpointBans(noAutoCommit);
        JdbcEndpointBans other = new JdbcEndpointBans(autoCommitting());
        assertThat(bans.trip("orders", "store-3", Duration.ofMinutes(5))).isOne();
        assertThat(other.trip("orders", "store-3", Duration.ofMinutes(5))).isEqualTo(2);
        assertThat(bans.ban("orders", "store-3", Duration.ofMinutes(5), "refused"))
                .isTrue();
        assertThat(other.bans("orders")).extracting(EndpointBan::endpoint).containsExactly("store-3");
    }

    /** A run's start and end (run: until-empty) are single statements too: another node must see them. */
    @Test
    void aRunsStartAndEndCommit() {
        TaskRuns runs = java.util.Objects.requireNonNull(store.runs());
        TaskRun started = runs.startFirst(task, "node-a", T0, null);
        TaskRuns other = new JdbcTaskRuns(autoCommitting());
        assertThat(other.current(task)).isNotNull().satisfies(run -> assertThat(run.done())
                .isFalse());
        assertThat(runs.finish(task, started.id(), RunCounts.NONE, "node-a", T0.plusSeconds(1)))
                .isTrue();
        assertThat(other.current(task)).isNotNull().satisfies(run -> assertThat(run.done())
                .isTrue());
    }

    /** A range task's shared cursor: a claim by one node moves the cursor for the next. */
    @Test
    void aRangeClaimCommits() {
        JdbcRangeCursor cursor = new JdbcRangeCursor(noAutoCommit, Duration.ofSeconds(10));
        JdbcRangeCursor other = new JdbcRangeCursor(autoCommitting(), Duration.ofSeconds(10));
        long first = cursor.claim("orders-range", 1, 100);
        assertThat(other.claim("orders-range", 1, 100)).isEqualTo(first + 100);
    }
}
