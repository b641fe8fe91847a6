package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.ScanContext;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.testsupport.CuttableCoordinator;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A handler that outlives its lease, like a long GC pause: node A's handler is still running when A
 * is cut off from the coordinator, its lease lapses and node B takes the shard over. Whatever A
 * then writes is refused by the fence, on PostgreSQL.
 */
@ServerTests
class FencingTests {

    static final Duration TTL = Duration.ofSeconds(2);
    static final Duration RENEW = Duration.ofMillis(300);

    @RegisterExtension
    final Engines engines = new Engines();

    final DataSource dataSource = TestServers.postgresDatabase("fencing");
    final TaskDefinition task = TaskDefinition.builder("orders")
            .table("tb_order")
            .idColumn("order_id")
            .shardKeyColumn("user_id")
            .shards(1)
            .build();
    OrderTable table;
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @BeforeEach
    void setUp() {
        table = new OrderTable(dataSource)
                .recreate(1, true)
                .coordinationTables()
                .insert(1, 1, Instant.now());
    }

    @Test
    void aStaleOwnersWriteBackChangesNothing() throws Exception {
        takeOverWhileNodeAHandles(false, (TaskHandler.PerRow) (row, ctx) -> {
            entered.countDown();
            release.await(30, TimeUnit.SECONDS);
            return Outcome.dead("written by a stale owner");
        });
        assertThat(table.count("order_id = 1 AND status = 0 AND retry_count = 0 AND last_error IS NULL"))
                .isEqualTo(1);
    }

    @Test
    void aStaleOwnersTransactionRollsBackItsOwnSql() throws Exception {
        ScanEngine b = takeOverWhileNodeAHandles(true, (TaskHandler.PerRow) (row, ctx) -> {
            entered.countDown();
            release.await(30, TimeUnit.SECONDS);
            effect(row, ctx);
            return Outcome.done();
        });
        assertThat(table.effects()).isZero();
        assertThat(table.count("order_id = 1 AND status = 0")).isEqualTo(1);
        b.task("orders").resume();
        await().until(() -> table.count("status = 1") == 1);
        assertThat(table.effects()).isEqualTo(1);
        assertThat(table.jdbc().queryForObject("SELECT node FROM effect", String.class))
                .isEqualTo("node-b");
    }

    @Test
    void transactionalHandlerCommitsItsSqlWithTheRowOnce() {
        table.jdbc().update("DELETE FROM tb_order");
        table.insert(500, 37, Instant.now());
        engines.start(
                "node-a",
                dataSource,
                new JdbcShardCoordinator(dataSource),
                new ScanEngine.ScanTask(task, (TaskHandler.PerRow) (row, ctx) -> effect(row, ctx), true),
                ScanClock.system(),
                ScanListener.NONE,
                TTL,
                RENEW);
        await().until(() -> table.count("status = 1") == 500);
        assertThat(table.effects()).isEqualTo(500);
        assertThat(table.duplicateEffects()).isZero();
    }

    private Outcome effect(Row row, ScanContext ctx) {
        return table.recordEffect(row, ctx, 0);
    }

    /** Returns node B, paused, holding the shard after node A's handler finished under a lapsed lease. */
    private ScanEngine takeOverWhileNodeAHandles(boolean transactional, TaskHandler handler) throws Exception {
        CuttableCoordinator cut = new CuttableCoordinator(new JdbcShardCoordinator(dataSource));
        ScanEngine a = engines.start(
                "node-a",
                dataSource,
                cut,
                new ScanEngine.ScanTask(task, handler, transactional),
                ScanClock.system(),
                ScanListener.NONE,
                TTL,
                RENEW);
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        long epochA = a.task("orders").ownedShards().get(0);
        cut.cut();
        ScanEngine b = engines.start(
                "node-b",
                dataSource,
                new JdbcShardCoordinator(dataSource),
                new ScanEngine.ScanTask(task, (TaskHandler.PerRow) this::effect, transactional),
                ScanClock.system(),
                ScanListener.NONE,
                TTL,
                RENEW);
        b.task("orders").pause();
        await().until(() -> b.task("orders").ownedShards().containsKey(0));
        long epochB = b.task("orders").ownedShards().get(0);
        assertThat(epochB).isGreaterThan(epochA);
        assertThat(table.jdbc().queryForObject("SELECT epoch FROM scan_fence WHERE shard = 0", Long.class))
                .isEqualTo(epochB);
        release.countDown();
        // node A's write-back came back, written or refused (transactional: the handler's transaction rolled
        // back as the loss was found); the row shows which
        TaskStats stats = a.task("orders").stats();
        await().until(() -> stats.inFlight() == 0
                && stats.processed()
                                + stats.failed()
                                + stats.dead()
                                + (transactional ? stats.leasesLost() : stats.writeBacksRefused())
                        >= 1);
        assertThat(table.count("status <> 0")).isZero();
        assertThat(stats.processed()).isZero();
        // the lapsed lease and the refused write-back are one loss, reported once
        assertThat(stats.leasesLost()).isEqualTo(1);
        if (!transactional) {
            assertThat(stats.writeBacksRefused()).isEqualTo(1);
        }
        return b;
    }
}
