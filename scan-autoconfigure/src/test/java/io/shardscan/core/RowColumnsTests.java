package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.task.EndpointRules;
import io.shardscan.core.task.RowColumns;
import io.shardscan.core.task.TaskDefinition;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RowColumnsTests {

    private static final List<String> TABLE = List.of(
            "ORDER_ID",
            "USER_ID",
            "PHONE",
            "PAYLOAD",
            "STATUS",
            "RETRY_COUNT",
            "UPDATED_AT",
            "LAST_ERROR",
            "CREATED_AT",
            "STORE_ID");

    private final TaskDefinition task = TaskDefinition.builder("orders")
            .table("tb_order")
            .idColumn("order_id")
            .shardKeyColumn("user_id")
            .build();

    @Test
    void selectsTheNamedColumnsAndTheEnginesOwnInTableOrderAsTheDatabaseSpellsThem() {
        assertThat(RowColumns.matching(List.of("phone", "createdAt")).select(task, TABLE))
                .containsExactly("ORDER_ID", "USER_ID", "PHONE", "RETRY_COUNT", "CREATED_AT");
    }

    @Test
    void readsTheUpdateTimeOnlyForATaskWithAMaxWaitWhichRanksItsRoundsByTheirOldestRow() {
        TaskDefinition aging = TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .maxWait(Duration.ofSeconds(5))
                .build();

        assertThat(RowColumns.matching(List.of("phone")).select(aging, TABLE))
                .containsExactly("ORDER_ID", "USER_ID", "PHONE", "RETRY_COUNT", "UPDATED_AT");
        assertThat(RowColumns.matching(List.of("phone")).select(task, TABLE))
                .containsExactly("ORDER_ID", "USER_ID", "PHONE", "RETRY_COUNT");
        assertThat(RowColumns.matching(List.of("updatedAt")).select(task, TABLE))
                .as("a handler that names it reads it")
                .containsExactly("ORDER_ID", "USER_ID", "RETRY_COUNT", "UPDATED_AT");
    }

    @Test
    void addsTheDueAtAndEndpointColumnsTheEngineReads() {
        TaskDefinition delayed = TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .dueAtColumn("created_at")
                .endpoints(EndpointRules.of("store_id"))
                .build();

        assertThat(RowColumns.matching(List.of()).select(delayed, TABLE))
                .containsExactly("ORDER_ID", "USER_ID", "RETRY_COUNT", "CREATED_AT", "STORE_ID");
    }

    @Test
    void allSelectsEveryColumn() {
        assertThat(RowColumns.ALL.all()).isTrue();
        assertThat(RowColumns.ALL.select(task, TABLE)).isEqualTo(TABLE);
        assertThat(task.rowColumns()).as("the default").isEqualTo(RowColumns.ALL);
        assertThat(task.withRowColumns(RowColumns.matching(List.of("phone"))).rowColumns())
                .isEqualTo(RowColumns.matching(List.of("PHONE")));
    }
}
