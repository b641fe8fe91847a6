package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.ScanEngine;
import io.shardscan.core.spi.SchemaReport;
import io.shardscan.core.task.Archive;
import io.shardscan.core.task.Match;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.dao.DataAccessException;

/**
 * One archive batch of {@link JdbcTaskStore#archive}: which rows it moves, that the copy and the
 * delete are one transaction, that a stale epoch changes nothing, and the DDL the startup check
 * prints; one small subclass per database. The archive table and index are created with the
 * statements the check prints.
 */
abstract class ArchiveContractTests {

    static final int SHARDS = 4;
    /** Long before the database's clock: rows updated then are older than any {@code after} below. */
    static final Instant OLD = Instant.parse("2026-01-01T00:00:00Z");

    @RegisterExtension
    final Engines engines = new Engines();

    OrderTable table;
    SqlDialect dialect;

    abstract DataSource dataSource();

    static TaskDefinition task(@Nullable String to, boolean includeDead, int batch) {
        return task(to, includeDead, batch, Duration.ofDays(1));
    }

    static TaskDefinition task(@Nullable String to, boolean includeDead, int batch, Duration after) {
        return TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS)
                .archive(new Archive(after, to, includeDead, batch, Duration.ZERO))
                .build();
    }

    /**
     * Orders 1..40 updated long ago, order i in shard i mod 4. In shard 1: 1, 5, 9, 13 done; 17
     * done just now; 21 dead; 25 pending; 29 pending after 3 failures. In shard 2: 2 and 6 done.
     */
    @BeforeEach
    void setUp() {
        table = new OrderTable(dataSource()).recreate(SHARDS, true).coordinationTables();
        dialect = SqlDialect.detect(dataSource());
        table.jdbc().execute("DROP TABLE IF EXISTS tb_order_archive");
        dialect.archiveTableStatements(task("tb_order_archive", false, 500), "tb_order_archive")
                .forEach(table.jdbc()::execute);
        new JdbcTaskStore(dataSource())
                .inspect(task("tb_order_archive", false, 500))
                .archiveIndexStatements()
                .forEach(table.jdbc()::execute);
        table.insert(40, 1000, OLD);
        table.jdbc()
                .update("UPDATE tb_order SET status = 1, last_error = 'once' WHERE order_id IN (1, 5, 9, 13, 2, 6)");
        table.jdbc()
                .update(
                        "UPDATE tb_order SET status = 1, updated_at = ? WHERE order_id = 17",
                        OrderTable.utc(Instant.now()));
        table.jdbc().update("UPDATE tb_order SET status = 2, retry_count = 16 WHERE order_id = 21");
        table.jdbc().update("UPDATE tb_order SET retry_count = 3 WHERE order_id = 29");
    }

    @Test
    void movesTheShardsDoneRowsOlderThanAfterWithAllTheirColumnsAndNothingElse() {
        JdbcTaskStore store = new JdbcTaskStore(dataSource());
        TaskDefinition task = task("tb_order_archive", false, 500);
        assertThat(store.inspect(task).problems()).isEmpty();
        List<Map<String, Object>> before = rows("tb_order", "order_id IN (1, 5, 9, 13)");
        long epoch = store.fence(task, 1, "node-a");
        assertThat(store.archive(task, 1, epoch)).isEqualTo(4);
        assertThat(ids("tb_order_archive")).containsExactly(1L, 5L, 9L, 13L);
        assertThat(rows("tb_order_archive", "1 = 1")).isEqualTo(before);
        assertThat(ids("tb_order")).hasSize(36).doesNotContain(1L, 5L, 9L, 13L).contains(17L, 21L, 25L, 29L, 2L, 6L);
        assertThat(store.archive(task, 1, epoch)).isZero();
    }

    @Test
    void movesAtMostABatchPerCall() {
        JdbcTaskStore store = new JdbcTaskStore(dataSource());
        TaskDefinition task = task("tb_order_archive", false, 3);
        long epoch = store.fence(task, 1, "node-a");
        assertThat(store.archive(task, 1, epoch)).isEqualTo(3);
        assertThat(store.archive(task, 1, epoch)).isEqualTo(1);
        assertThat(store.archive(task, 1, epoch)).isZero();
        assertThat(ids("tb_order_archive")).containsExactlyInAnyOrder(1L, 5L, 9L, 13L);
    }

    @Test
    void movesDeadRowsOnlyWhenConfigured() {
        JdbcTaskStore store = new JdbcTaskStore(dataSource());
        TaskDefinition task = task("tb_order_archive", true, 500);
        long epoch = store.fence(task, 1, "node-a");
        assertThat(store.archive(task, 1, epoch)).isEqualTo(5);
        assertThat(ids("tb_order_archive")).containsExactly(1L, 5L, 9L, 13L, 21L);
        assertThat(ids("tb_order")).contains(17L, 25L, 29L);
    }

    @Test
    void deleteDeletesWithoutATable() {
        table.jdbc().execute("DROP TABLE tb_order_archive");
        JdbcTaskStore store = new JdbcTaskStore(dataSource());
        TaskDefinition task = task(null, false, 500);
        assertThat(store.inspect(task).problems()).isEmpty();
        long epoch = store.fence(task, 1, "node-a");
        assertThat(store.archive(task, 1, epoch)).isEqualTo(4);
        assertThat(ids("tb_order")).hasSize(36).doesNotContain(1L, 5L, 9L, 13L).contains(17L, 21L, 25L, 29L);
    }

    /**
     * The cutoff reads the database's clock in UTC, as the engine stamps {@code updated_at}: with
     * {@code after} an hour, the done rows stamped two hours ago go, those stamped half an hour ago or
     * just now stay. On MariaDB the class runs in a JVM zone that is not the server's, where a cutoff
     * in either zone would move by its offset from UTC (eight hours in Asia/Shanghai).
     */
    @Test
    void theCutoffIsTheDatabasesClockInUtcAsTheEngineStampsTheColumn() {
        Instant now = Instant.now();
        setUpdatedAt(now.minus(Duration.ofHours(2)), 1, 5);
        setUpdatedAt(now.minus(Duration.ofMinutes(30)), 9, 13);
        JdbcTaskStore store = new JdbcTaskStore(dataSource());
        TaskDefinition task = task("tb_order_archive", false, 500, Duration.ofHours(1));
        assertThat(store.archive(task, 1, store.fence(task, 1, "node-a"))).isEqualTo(2);
        assertThat(ids("tb_order_archive")).containsExactly(1L, 5L);
        assertThat(ids("tb_order")).contains(9L, 13L, 17L);
    }

    @Test
    void aStaleEpochChangesNothing() {
        JdbcTaskStore store = new JdbcTaskStore(dataSource());
        TaskDefinition task = task("tb_order_archive", true, 500);
        long stale = store.fence(task, 1, "node-a");
        long current = store.fence(task, 1, "node-b");
        assertThat(store.archive(task, 1, stale)).isEqualTo(-1);
        assertThat(ids("tb_order_archive")).isEmpty();
        assertThat(ids("tb_order")).hasSize(40);
        assertThat(store.archive(task, 1, current)).isEqualTo(5);
    }

    @Test
    void aCopyThatFailsDeletesNothing() {
        table.jdbc()
                .update(
                        "INSERT INTO tb_order_archive (order_id, user_id, status, retry_count, updated_at)"
                                + " VALUES (9, 9, 1, 0, ?)",
                        OrderTable.utc(OLD));
        JdbcTaskStore store = new JdbcTaskStore(dataSource());
        TaskDefinition task = task("tb_order_archive", false, 500);
        long epoch = store.fence(task, 1, "node-a");
        assertThatThrownBy(() -> store.archive(task, 1, epoch)).isInstanceOf(DataAccessException.class);
        assertThat(ids("tb_order")).hasSize(40);
        assertThat(ids("tb_order_archive")).containsExactly(9L);
    }

    @Test
    void inspectionPrintsTheArchiveTableAndIndexStatementsThatAreMissing() {
        TaskDefinition task = task("tb_order_archive", false, 500);
        assertThat(new JdbcTaskStore(dataSource()).inspect(task).archiveIndexStatements())
                .isEmpty();
        table.jdbc().execute("DROP TABLE tb_order_archive");
        table.recreate(SHARDS, true);
        SchemaReport report = new JdbcTaskStore(dataSource()).inspect(task);
        assertThat(report.archiveIndexStatements())
                .singleElement()
                .asString()
                .startsWith("CREATE INDEX tb_order_finished_idx ON tb_order (");
        assertThat(report.problems())
                .singleElement()
                .asString()
                .startsWith("scan.tasks.orders.archive.to names table tb_order_archive, which does not exist")
                .contains(String.join(";\n  ", dialect.archiveTableStatements(task, "tb_order_archive")))
                .endsWith("or set scan.tasks.orders.archive.to=delete to delete finished rows instead of moving them");
        table.jdbc().execute("CREATE TABLE tb_order_archive (order_id BIGINT PRIMARY KEY, user_id BIGINT)");
        String lacking =
                new JdbcTaskStore(dataSource()).inspect(task).problems().get(0);
        assertThat(lacking)
                .contains("names table tb_order_archive, which lacks columns ")
                .contains("add them:\n  ALTER TABLE tb_order_archive ADD COLUMN ")
                .doesNotContain("CREATE TABLE")
                .satisfies(problem -> assertThat(problem.toLowerCase(Locale.ROOT))
                        .contains("status", "retry_count", "updated_at", "last_error", "phone"));
        // the statements it prints run on this database and leave nothing lacking
        for (String statement : lacking.substring(lacking.indexOf(":\n  ") + 4).split(";\n  ")) {
            table.jdbc().execute(statement);
        }
        assertThat(new JdbcTaskStore(dataSource()).inspect(task).problems()).isEmpty();
    }

    /**
     * Two tasks on one table through their match: each archives only its own rows, through an
     * index of its own, and a batch of one never touches the other's.
     */
    @Test
    void aTaskWithAMatchArchivesOnlyItsOwnRows() {
        table.jdbc().execute("ALTER TABLE tb_order ADD COLUMN kind INT");
        table.jdbc().update("UPDATE tb_order SET kind = CASE WHEN order_id IN (1, 9) THEN 1 ELSE 2 END");
        TaskDefinition vip = TaskDefinition.builder("vip")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS)
                .match(List.of(Match.of("kind", 1)))
                .archive(new Archive(Duration.ofDays(1), "tb_order_archive", false, 500, Duration.ZERO))
                .build();
        table.jdbc().execute("DROP TABLE tb_order_archive");
        dialect.archiveTableStatements(vip, "tb_order_archive").forEach(table.jdbc()::execute);
        List<String> index = new JdbcTaskStore(dataSource()).inspect(vip).archiveIndexStatements();
        assertThat(index).singleElement().asString().contains("kind");
        index.forEach(table.jdbc()::execute);
        JdbcTaskStore store = new JdbcTaskStore(dataSource());
        SchemaReport report = store.inspect(vip);
        assertThat(report.archiveIndexStatements()).isEmpty();
        assertThat(report.problems()).isEmpty();
        assertThat(store.archive(vip, 1, store.fence(vip, 1, "node-a"))).isEqualTo(2);
        assertThat(ids("tb_order_archive")).containsExactly(1L, 9L);
        assertThat(ids("tb_order")).contains(5L, 13L);
    }

    @Test
    void theEngineArchivesTheOldDoneRowsOfEveryShardAndHandlesThePendingOnes() {
        TaskDefinition task = task("tb_order_archive", false, 2);
        ScanEngine engine = engines.start("node-a", dataSource(), task, (TaskHandler.PerRow) (row, ctx) -> null);
        await().until(() -> engine.task("orders").stats().archived() == 6);
        assertThat(ids("tb_order_archive")).containsExactly(1L, 2L, 5L, 6L, 9L, 13L);
        await().until(() -> table.count("status = 0") == 0);
        // the rows handled now, the recent done one and the dead one stay
        assertThat(ids("tb_order")).hasSize(34).contains(17L, 21L, 25L, 29L);
        assertThat(engine.task("orders").stats().lastArchiveRunAt()).isNotNull();
    }

    /** Sets the rows' {@code updated_at} as the engine stamps it: in UTC, whatever the JVM's zone. */
    void setUpdatedAt(Instant at, long... ids) {
        for (long id : ids) {
            table.jdbc().update("UPDATE tb_order SET updated_at = ? WHERE order_id = ?", OrderTable.utc(at), id);
        }
    }

    /** The ids of a table, ascending. */
    List<Long> ids(String tableName) {
        return table.jdbc().queryForList("SELECT order_id FROM " + tableName + " ORDER BY order_id", Long.class);
    }

    /** The scanned table's columns of some rows, by lower-case name, in id order. */
    List<Map<String, Object>> rows(String tableName, String where) {
        return table
                .jdbc()
                .queryForList("SELECT order_id, user_id, phone, status, retry_count, updated_at, last_error FROM "
                        + tableName + " WHERE " + where + " ORDER BY order_id")
                .stream()
                .map(row -> {
                    Map<String, Object> lower = new java.util.TreeMap<>();
                    row.forEach((k, v) -> lower.put(k.toLowerCase(Locale.ROOT), v));
                    return (Map<String, Object>) lower;
                })
                .toList();
    }
}
