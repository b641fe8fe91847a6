package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.spi.FailureGroup;
import io.shardscan.core.spi.Requeue;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.testsupport.OrderTable;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Failed and dead rows grouped by last error, paged, and requeued by id, by error and all at once;
 * one small subclass per database.
 */
abstract class FailureGroupsContractTests {

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
        // dead: 5 x "timeout" (ids 1-5), 2 x "refused" (6, 7), 1 without error (8); failed: 3 x "timeout" (20-22)
        fail(2, "timeout", T0.plusSeconds(10), 1, 2, 3);
        fail(2, "timeout", T0.plusSeconds(50), 4, 5);
        fail(2, "refused", T0.plusSeconds(20), 6, 7);
        table.jdbc().update("UPDATE tb_order SET status = 2, retry_count = 16 WHERE order_id = 8");
        fail(0, "timeout", T0.plusSeconds(30), 20, 21, 22);
    }

    void fail(int status, String error, Instant at, long... ids) {
        for (long id : ids) {
            table.jdbc()
                    .update(
                            "UPDATE tb_order SET status = ?, retry_count = 3, last_error = ?, updated_at = ? WHERE order_id = ?",
                            status,
                            error,
                            Timestamp.from(at),
                            id);
        }
    }

    @Test
    void groupsDeadRowsByLastErrorLargestFirstWithFirstAndLastSeenAndExamples() {
        List<FailureGroup> groups = store.admin().failureGroups(task, true, 0, 10, 3);
        assertThat(groups).extracting(FailureGroup::error).containsExactly("timeout", "refused", null);
        FailureGroup timeout = groups.get(0);
        assertThat(timeout.rows()).isEqualTo(5);
        assertThat(timeout.firstSeen()).isEqualTo(T0.plusSeconds(10));
        assertThat(timeout.lastSeen()).isEqualTo(T0.plusSeconds(50));
        assertThat(timeout.exampleIds())
                .extracting(id -> ((Number) id).longValue())
                .containsExactly(1L, 2L, 3L);
        assertThat(groups.get(2).exampleIds())
                .extracting(id -> ((Number) id).longValue())
                .containsExactly(8L);
    }

    @Test
    void groupsFailedPendingRowsApartFromDeadOnesAndPages() {
        assertThat(store.admin().failureGroups(task, false, 0, 10, 3))
                .singleElement()
                .satisfies(g -> assertThat(g.error()).isEqualTo("timeout"))
                .satisfies(g -> assertThat(g.rows()).isEqualTo(3));
        assertThat(store.admin().failureGroups(task, true, 1, 2, 3))
                .extracting(FailureGroup::error)
                .containsExactly((String) null);
        assertThat(store.admin().failureGroups(task, true, 2, 2, 3)).isEmpty();
    }

    @Test
    void readsOneRowWithEveryColumnOrNothingForAnUnknownId() {
        java.util.Map<String, Object> row = store.admin().readRow(task, 6L);
        assertThat(row).isNotNull();
        java.util.Map<String, Object> lower = new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        lower.putAll(row);
        assertThat(lower.get("last_error")).isEqualTo("refused");
        assertThat(((Number) lower.get("order_id")).longValue()).isEqualTo(6L);
        assertThat(lower).containsKeys("user_id", "phone", "status", "retry_count", "updated_at");
        assertThat(store.admin().readRow(task, 999_999L)).isNull();
    }

    @Test
    void readsTheEnginesZoneLessUpdateTimeAsUtcAndAnotherZoneLessTimestampAsStored() {
        table.withDueAtColumn();
        table.jdbc()
                .update(
                        "UPDATE tb_order SET updated_at = ?, due_at = ? WHERE order_id = 6",
                        OrderTable.utc(T0.plusSeconds(20)),
                        LocalDateTime.parse("2026-03-01T12:00:00"));
        java.util.Map<String, Object> row = new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        row.putAll(store.admin().readRow(task, 6L));
        assertThat(row.get("updated_at"))
                .as("the engine stamps it in UTC")
                .isEqualTo(T0.plusSeconds(20).atOffset(ZoneOffset.UTC));
        assertThat(row.get("due_at"))
                .as("the table does not say its zone")
                .isEqualTo(LocalDateTime.parse("2026-03-01T12:00:00"));
    }

    @Test
    void requeuesOneRowAGroupOrAllAsFreshRowsAndLeavesTheOthers() {
        assertThat(store.admin().requeue(task, Requeue.rows(true, List.of(2L)))).isEqualTo(1);
        assertThat(table.count("order_id = 2 AND status = 0 AND retry_count = 0"))
                .isEqualTo(1);
        assertThat(store.admin().requeue(task, Requeue.rows(true, List.of(20L))))
                .as("a failed pending row is not dead")
                .isZero();

        assertThat(store.admin().requeue(task, Requeue.withError(true, "refused")))
                .isEqualTo(2);
        assertThat(store.admin().requeue(task, Requeue.withError(true, null))).isEqualTo(1);
        assertThat(table.count("status = 2")).isEqualTo(4);

        assertThat(store.admin().requeue(task, Requeue.all(false))).isEqualTo(3);
        assertThat(table.count("order_id IN (20, 21, 22) AND status = 0 AND retry_count = 0"))
                .isEqualTo(3);
        assertThat(store.admin().requeue(task, Requeue.all(true))).isEqualTo(4);
        assertThat(table.count("status = 2")).isZero();
        assertThat(store.admin().failureGroups(task, true, 0, 10, 3)).isEmpty();
    }

    @Test
    void errorsThatDifferOnlyInTheirDigitsAreOneGroupWithAnOriginalAsExample() {
        fail(2, "order 31 not found after 3 tries", T0.plusSeconds(70), 31);
        fail(2, "order 32 not found after 12 tries", T0.plusSeconds(80), 32);
        fail(2, "order 33 not found after 12 tries", T0.plusSeconds(90), 33);

        List<FailureGroup> groups = store.admin().failureGroups(task, true, 0, 10, 5);

        assertThat(groups)
                .filteredOn(g -> "order # not found after # tries".equals(g.error()))
                .singleElement()
                .satisfies(g -> {
                    assertThat(g.rows()).isEqualTo(3);
                    assertThat(g.exampleIds())
                            .extracting(id -> ((Number) id).longValue())
                            .containsExactly(31L, 32L, 33L);
                    assertThat(g.example()).isEqualTo("order 31 not found after 3 tries");
                });
        assertThat(groups).extracting(FailureGroup::error).doesNotContain("order 32 not found after 12 tries");
        assertThat(groups)
                .filteredOn(g -> "timeout".equals(g.error()))
                .singleElement()
                .satisfies(g -> assertThat(g.example()).isEqualTo("timeout"));
        // the group's key, or any error of the group, requeues the whole group
        assertThat(store.admin().requeue(task, Requeue.withError(true, "order 99 not found after 1 tries")))
                .isEqualTo(3);
        assertThat(table.count("order_id IN (31, 32, 33) AND status = 0")).isEqualTo(3);
    }

    @Test
    void errorsThatDifferOnlyInTheUuidsTheyNameAreOneGroup() {
        fail(2, "doc 029142e0-db35-4b52-aa68-0133609ef41f rejected after 4 tries", T0.plusSeconds(70), 34);
        fail(2, "doc A5EC7638-0D1F-4A3B-9C2E-77F0B1E2D3C4 rejected after 4 tries", T0.plusSeconds(80), 35);

        assertThat(store.admin().failureGroups(task, true, 0, 10, 5))
                .filteredOn(g -> "doc # rejected after # tries".equals(g.error()))
                .singleElement()
                .satisfies(g -> assertThat(g.rows()).isEqualTo(2));
        assertThat(FailureGroup.keyOf("doc 029142e0-db35-4b52-aa68-0133609ef41f rejected after 4 tries"))
                .isEqualTo("doc # rejected after # tries");
        assertThat(store.admin()
                        .requeue(
                                task,
                                Requeue.withError(
                                        true, "doc 00000000-0000-0000-0000-000000000000 rejected after 1 tries")))
                .isEqualTo(2);
    }
}
