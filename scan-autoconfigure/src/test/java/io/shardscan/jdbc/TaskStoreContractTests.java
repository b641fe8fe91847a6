package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.shardscan.core.Backlog;
import io.shardscan.core.BacklogCounts;
import io.shardscan.core.FetchRequest;
import io.shardscan.core.IndexCheck;
import io.shardscan.core.Row;
import io.shardscan.core.SchemaReport;
import io.shardscan.core.TaskDefinition;
import io.shardscan.core.TaskStore;
import io.shardscan.core.WriteBack;
import io.shardscan.testsupport.OrderTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What every {@link TaskStore} must do; one small subclass per database. */
abstract class TaskStoreContractTests {

    static final int SHARDS = 4;
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    OrderTable table;
    TaskStore store;
    TaskDefinition task = TaskDefinition.builder("orders")
            .table("tb_order")
            .idColumn("order_id")
            .shardKeyColumn("user_id")
            .shards(SHARDS)
            .build();

    abstract DataSource dataSource();

    @BeforeEach
    void setUp() {
        table = new OrderTable(dataSource()).recreate(SHARDS, true).coordinationTables();
        table.insert(40, 1000, T0);
        store = new JdbcTaskStore(dataSource());
        assertThat(store.inspect(task).indexPresent()).isTrue();
    }

    @Test
    void fetchesOnlyPendingRowsOfTheShardInIdOrder() {
        table.jdbc().update("UPDATE tb_order SET status = 1 WHERE order_id IN (1, 5)");
        List<Row> rows = store.fetch(task, fresh(1, Long.MIN_VALUE, 100));
        assertThat(rows).extracting(Row::id).containsExactly(9L, 13L, 17L, 21L, 25L, 29L, 33L, 37L);
        assertThat(rows).allSatisfy(r -> assertThat(task.shardOf(r.shardKey())).isEqualTo(1));
        assertThat(rows.get(0).columns())
                .containsEntry("phone", "+15559")
                .containsEntry("updated_at", Timestamp.from(T0))
                .doesNotContainKey("last_error");
        assertThatThrownBy(() -> rows.get(0).columns().put("phone", "changed"))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void pagesByKeysetAfterTheLastIdWithTheLimit() {
        assertThat(store.fetch(task, fresh(1, 9, 3))).extracting(Row::id).containsExactly(13L, 17L, 21L);
    }

    @Test
    void failedTierSeesOnlyItsRetryRangeOnceRested() {
        table.jdbc()
                .update(
                        "UPDATE tb_order SET retry_count = 2, updated_at = ? WHERE order_id IN (2, 6)",
                        java.sql.Timestamp.from(T0.plusSeconds(30)));
        table.jdbc().update("UPDATE tb_order SET retry_count = 7 WHERE order_id = 10");
        FetchRequest early = new FetchRequest(2, 1, 5, T0.plusSeconds(29), Long.MIN_VALUE, 100);
        FetchRequest rested = new FetchRequest(2, 1, 5, T0.plusSeconds(30), Long.MIN_VALUE, 100);
        assertThat(store.fetch(task, early)).isEmpty();
        assertThat(store.fetch(task, rested)).extracting(Row::id).containsExactly(2L, 6L);
        assertThat(store.fetch(task, fresh(2, Long.MIN_VALUE, 100)))
                .extracting(Row::id)
                .doesNotContain(2L, 6L, 10L);
    }

    @Test
    void writeBackMarksDoneFailedAndDeadUnderTheCurrentFence() {
        assertThat(store.fence(task, 1, 5)).isTrue();
        Instant at = T0.plusSeconds(60);
        WriteBack batch = new WriteBack(
                1,
                5,
                at,
                List.of(1L),
                List.of(new WriteBack.Failure(5, 1, "boom")),
                List.of(new WriteBack.Failure(9, 16, "gone")));
        assertThat(store.writeBack(task, batch)).isTrue();
        assertThat(table.jdbc()
                        .queryForList("SELECT order_id, status, retry_count, last_error FROM tb_order"
                                + " WHERE order_id IN (1, 5, 9) ORDER BY order_id"))
                .extracting(m -> List.of(
                        number(m, "order_id"),
                        number(m, "status"),
                        number(m, "retry_count"),
                        String.valueOf(m.get(key(m, "last_error")))))
                .containsExactly(
                        List.of(1L, 1L, 0L, "null"), List.of(5L, 0L, 1L, "boom"), List.of(9L, 2L, 16L, "gone"));
        Instant updated = table.jdbc()
                .queryForObject("SELECT updated_at FROM tb_order WHERE order_id = 5", java.sql.Timestamp.class)
                .toInstant();
        assertThat(updated.truncatedTo(ChronoUnit.SECONDS)).isEqualTo(at);
    }

    @Test
    void staleEpochWritesNothing() {
        assertThat(store.fence(task, 1, 5)).isTrue();
        assertThat(store.fence(task, 1, 6)).isTrue();
        assertThat(store.fence(task, 1, 4)).isFalse();
        WriteBack stale = new WriteBack(1, 5, T0, List.of(1L, 5L), List.of(), List.of());
        assertThat(store.writeBack(task, stale)).isFalse();
        assertThat(table.count("status = 1")).isZero();
    }

    @Test
    void writeBackLeavesRowsThatAreNoLongerPending() {
        store.fence(task, 1, 1);
        table.jdbc().update("UPDATE tb_order SET status = 2 WHERE order_id = 1");
        store.writeBack(task, new WriteBack(1, 1, T0, List.of(1L), List.of(), List.of()));
        assertThat(table.count("order_id = 1 AND status = 2")).isEqualTo(1);
    }

    @Test
    void reportsMissingTableColumnsAndIndex() {
        SchemaReport noTable =
                store.inspect(TaskDefinition.builder("x").table("no_such_table").build());
        assertThat(noTable.tableExists()).isFalse();
        SchemaReport noColumn = store.inspect(TaskDefinition.builder("x")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .retryColumn("attempts")
                .build());
        assertThat(noColumn.missingColumns()).containsExactly("attempts");
        new OrderTable(dataSource()).recreate(SHARDS, false);
        SchemaReport noIndex = new JdbcTaskStore(dataSource()).inspect(task);
        assertThat(noIndex.indexPresent()).isFalse();
        assertThat(String.join(";", noIndex.indexStatements())).contains("CREATE INDEX tb_order_scan_idx ON tb_order");
        noIndex.indexStatements().forEach(table.jdbc()::execute);
        assertThat(new JdbcTaskStore(dataSource()).inspect(task).indexPresent()).isTrue();
    }

    @Test
    void unindexedTableIsStillFetchedCorrectly() {
        new OrderTable(dataSource()).recreate(SHARDS, false).insert(8, 4, T0);
        TaskDefinition warn = TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS)
                .indexCheck(IndexCheck.WARN)
                .build();
        JdbcTaskStore fresh = new JdbcTaskStore(dataSource());
        fresh.inspect(warn);
        assertThat(fresh.fetch(warn, fresh(3, Long.MIN_VALUE, 10)))
                .extracting(Row::id)
                .containsExactly(3L, 7L);
    }

    @Test
    void countsPendingRowsByRetryCountAndDeadRows() {
        table.jdbc().update("UPDATE tb_order SET status = 1 WHERE order_id <= 10");
        table.jdbc().update("UPDATE tb_order SET status = 2 WHERE order_id BETWEEN 11 AND 13");
        table.jdbc()
                .update(
                        "UPDATE tb_order SET retry_count = 3, updated_at = ? WHERE order_id BETWEEN 14 AND 15",
                        java.sql.Timestamp.from(T0.minusSeconds(60)));
        BacklogCounts counts = store.countBacklog(task);
        assertThat(counts.dead()).isEqualTo(3);
        assertThat(counts.pending())
                .extracting(BacklogCounts.Group::retries, BacklogCounts.Group::count)
                .containsExactlyInAnyOrder(tuple(0, 25L), tuple(3, 2L));
        assertThat(counts.pending())
                .filteredOn(g -> g.retries() == 3)
                .singleElement()
                .satisfies(g -> assertThat(g.oldestUpdatedAt()).isEqualTo(T0.minusSeconds(60)));
        Backlog backlog = Backlog.of(task, counts, T0);
        assertThat(backlog.total()).isEqualTo(27);
        assertThat(backlog.tiers())
                .extracting(
                        Backlog.TierBacklog::retries,
                        Backlog.TierBacklog::pending,
                        Backlog.TierBacklog::oldestPendingAgeSeconds)
                .containsExactly(tuple("0", 25L, 0L), tuple("1-5", 2L, 60L), tuple("6-15", 0L, 0L));
    }

    @Test
    void requeuesDeadRowsAsFresh() {
        table.jdbc().update("UPDATE tb_order SET status = 2, retry_count = 16 WHERE order_id IN (3, 4)");
        assertThat(store.requeueDead(task, T0.plusSeconds(5))).isEqualTo(2);
        assertThat(table.count("order_id IN (3, 4) AND status = 0 AND retry_count = 0"))
                .isEqualTo(2);
        assertThat(store.countBacklog(task).dead()).isZero();
    }

    private static FetchRequest fresh(int shard, long afterId, int limit) {
        return new FetchRequest(shard, 0, 0, T0, afterId, limit);
    }

    private static String key(java.util.Map<String, Object> row, String name) {
        return row.keySet().stream()
                .filter(k -> k.equalsIgnoreCase(name))
                .findFirst()
                .orElseThrow();
    }

    private static long number(java.util.Map<String, Object> row, String name) {
        return ((Number) row.get(key(row, name))).longValue();
    }

    /**
     * The database's plan for the fetch of a tier's rows of shard 1, every column of every plan
     * row joined; {@code setting} (or {@code null}) runs first on the same connection.
     */
    String explainFetch(int minRetries, int maxRetries, String setting) throws SQLException {
        SqlDialect dialect = SqlDialect.detect(dataSource());
        TaskSql sql = TaskSql.of(
                task, new TableInspector(dataSource(), dialect).inspect(task).names(), dialect);
        try (Connection connection = dataSource().getConnection()) {
            if (setting != null) {
                connection.createStatement().execute(setting);
            }
            try (PreparedStatement explain =
                    connection.prepareStatement("EXPLAIN " + sql.fetch().sql(minRetries, maxRetries))) {
                int index = 1;
                explain.setInt(index++, 1);
                if (TaskSql.Fetch.takesDueBound(maxRetries)) {
                    explain.setTimestamp(index++, Timestamp.from(T0));
                }
                explain.setLong(index++, Long.MIN_VALUE);
                explain.setInt(index, 100);
                StringBuilder plan = new StringBuilder();
                try (ResultSet rs = explain.executeQuery()) {
                    while (rs.next()) {
                        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                            plan.append(rs.getString(i)).append(' ');
                        }
                        plan.append('\n');
                    }
                }
                return plan.toString();
            }
        }
    }
}
