package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.FailingReadsDataSource;
import io.shardscan.testsupport.OrderTable;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A handler call that ends in any {@link Throwable}, a {@link VirtualMachineError} too, fails its
 * row: retry count 1, the error kept, one WARN, and its key's later rows run once it succeeds; the
 * same through a batch handler and in transactional mode (its SQL rolled back). An
 * {@link OutOfMemoryError} while a page of rows is decoded is logged as the node's, never as "the
 * database was not reached". One small subclass per database.
 */
abstract class HandlerErrorContractTests {

    static final int ROWS = 20;
    static final int USERS = 5;
    /** Order 7 is user 2's first: 12 and 17 are its later rows. */
    static final long FAILING = 7;

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final CapturedLog laneLog = new CapturedLog("io.shardscan.core.Lane");

    @RegisterExtension
    final CapturedLog roundLog = new CapturedLog("io.shardscan.core.Round");

    OrderTable table;
    final List<Long> done = new CopyOnWriteArrayList<>();

    abstract DataSource dataSource();

    @BeforeEach
    void setUp() {
        table = new OrderTable(dataSource()).recreate(4, true).coordinationTables();
        table.insert(ROWS, USERS, Instant.now().minusSeconds(5));
    }

    @Test
    void anOutOfMemoryErrorInAHandlerFailsItsRowOnceAndItsKeyGoesOn() {
        start(perRow(() -> new OutOfMemoryError("Java heap space (thrown by the test)")), false);
        assertFailedOnceThenDone("java.lang.OutOfMemoryError: Java heap space (thrown by the test)");
        assertThat(done.indexOf(FAILING)).as("user 2's rows in order: %s", done).isLessThan(done.indexOf(12L));
        assertThat(done.indexOf(12L)).as("user 2's rows in order: %s", done).isLessThan(done.indexOf(17L));
        assertThat(laneLog.warnings())
                .filteredOn(m -> m.contains("OutOfMemoryError"))
                .singleElement()
                .asString()
                .contains("row 7 failed at attempt 1")
                .contains("-XX:+ExitOnOutOfMemoryError");
    }

    /** A real stack overflow in the handler's own code: a row failure, not the node's end. */
    @Test
    void aStackOverflowInTheHandlersCodeFailsItsRowOnce() {
        start(
                perRow(
                        () -> { // the handler recurses until the JVM stops it
                            recurse(0);
                            throw new AssertionError("unreachable");
                        }),
                false);
        assertFailedOnceThenDone("java.lang.StackOverflowError");
        assertThat(laneLog.warnings())
                .filteredOn(m -> m.contains("StackOverflowError"))
                .singleElement()
                .asString()
                .contains("row 7 failed at attempt 1");
    }

    @Test
    void anOutOfMemoryErrorInABatchHandlerFailsTheRowsOfItsBatch() {
        AtomicBoolean thrown = new AtomicBoolean();
        start(
                (TaskHandler.Batch) (rows, ctx) -> {
                    if (rows.stream().anyMatch(row -> row.id() == FAILING) && thrown.compareAndSet(false, true)) {
                        throw new OutOfMemoryError("Java heap space (thrown by the test)");
                    }
                    rows.forEach(row -> done.add(row.id()));
                    return null;
                },
                false);
        await().until(() -> table.count("status = 1") == ROWS);
        assertThat(retries(FAILING)).isEqualTo(1);
        assertThat(laneLog.warnings())
                .filteredOn(m -> m.contains("OutOfMemoryError"))
                .singleElement()
                .asString()
                .contains("other rows of its batch) failed at attempt 1");
    }

    /** The handler's SQL is rolled back with its call; the row is failed outside that transaction. */
    @Test
    void anOutOfMemoryErrorInATransactionalHandlerRollsBackItsSqlAndFailsTheRow() {
        AtomicBoolean thrown = new AtomicBoolean();
        start(
                (TaskHandler.PerRow) (row, ctx) -> {
                    table.recordEffect(row, ctx, row.id());
                    if (row.id() == FAILING && thrown.compareAndSet(false, true)) {
                        throw new OutOfMemoryError("Java heap space (thrown by the test)");
                    }
                    done.add(row.id());
                    return null;
                },
                true);
        assertFailedOnceThenDone("java.lang.OutOfMemoryError: Java heap space (thrown by the test)");
        assertThat(table.jdbc().queryForObject("SELECT COUNT(*) FROM effect WHERE order_id = 7", Integer.class))
                .as("the failed call's effect rolled back, the successful one's kept")
                .isEqualTo(1);
    }

    @Test
    void anOutOfMemoryErrorDecodingAPageIsTheNodesNotTheDatabases() {
        FailingReadsDataSource failing = new FailingReadsDataSource(dataSource(), "phone")
                .arm(() -> new OutOfMemoryError("Java heap space (thrown by the test)"));
        engines.start(
                "node-a",
                new JdbcTaskStore(failing.dataSource()),
                new JdbcShardCoordinator(dataSource()),
                new ScanEngine.ScanTask(task(), (TaskHandler.PerRow) (row, ctx) -> null),
                ScanClock.system(),
                ScanListener.NONE,
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
        await().until(() -> roundLog.messages(Level.SEVERE).stream().anyMatch(m -> m.contains("OutOfMemoryError")));
        assertThat(roundLog.messages(Level.SEVERE))
                .filteredOn(m -> m.contains("OutOfMemoryError"))
                .first()
                .asString()
                .contains("round failed, its rows stay pending and are fetched again in PT10S")
                .contains("java.lang.OutOfMemoryError: Java heap space (thrown by the test)")
                .contains("this node ran out of memory, not a database failure")
                .contains("Lower the task's page-size")
                .doesNotContain("the database was not reached");
        assertThat(table.count("status = 0 AND retry_count = 0"))
                .as("no row was run")
                .isEqualTo(ROWS);
    }

    private void assertFailedOnceThenDone(String error) {
        await().until(() -> table.count("status = 1") == ROWS);
        assertThat(retries(FAILING)).as("failed once, then done").isEqualTo(1);
        assertThat(table.jdbc()
                        .queryForObject("SELECT last_error FROM tb_order WHERE order_id = ?", String.class, FAILING))
                .startsWith(error);
    }

    /** A handler that fails order 7's first call with what {@code failure} throws, and succeeds otherwise. */
    private TaskHandler perRow(java.util.function.Supplier<? extends Error> failure) {
        AtomicBoolean thrown = new AtomicBoolean();
        return (TaskHandler.PerRow) (row, ctx) -> {
            if (row.id() == FAILING && thrown.compareAndSet(false, true)) {
                throw failure.get();
            }
            done.add(row.id());
            return null;
        };
    }

    private static int recurse(int depth) {
        return recurse(depth + 1) + 1;
    }

    private void start(TaskHandler handler, boolean transactional) {
        engines.start(
                "node-a",
                dataSource(),
                new JdbcShardCoordinator(dataSource()),
                new ScanEngine.ScanTask(task(), handler, transactional),
                ScanClock.system(),
                ScanListener.NONE,
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
    }

    private static TaskDefinition task() {
        return TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(4)
                .tiers(List.of(Tier.of("0", Duration.ofMillis(200)), Tier.of("1-5", Duration.ofMillis(200))))
                .build();
    }

    private int retries(long id) {
        return table.jdbc().queryForObject("SELECT retry_count FROM tb_order WHERE order_id = ?", Integer.class, id);
    }
}
