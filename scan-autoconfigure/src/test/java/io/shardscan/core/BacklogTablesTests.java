package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.spi.BacklogCounts;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A sharded task's backlog lists its busiest tables only, the most pending first, at most twenty. */
class BacklogTablesTests {

    private static BacklogCounts counts(long pending, long dead) {
        return new BacklogCounts(
                pending == 0 ? List.of() : List.of(new BacklogCounts.Group(0, pending, Instant.EPOCH)), dead, 0);
    }

    @Test
    void listsTheTablesWithRowsTheMostPendingFirstAtMostTwenty() {
        Map<String, BacklogCounts> byTable = new LinkedHashMap<>();
        for (int i = 0; i < 1024; i++) {
            // only the last 24 tables hold rows, table 1000 + k with k + 1 pending; table 1001 has dead rows only
            byTable.put("tb_order_" + i, i < 1000 ? counts(0, 0) : i == 1001 ? counts(0, 5) : counts(i - 999, 0));
        }
        Backlog backlog = new Backlog(List.of(), 5, 0, 0, 0, Instant.EPOCH).withTables(byTable);
        assertThat(backlog.tables()).hasSize(Backlog.TABLES_SHOWN);
        assertThat(backlog.tables().get(0)).isEqualTo(new Backlog.TableBacklog("tb_order_1023", 24, 0));
        assertThat(backlog.tables().get(19)).isEqualTo(new Backlog.TableBacklog("tb_order_1004", 5, 0));
        assertThat(backlog.tables()).noneMatch(table -> table.table().equals("tb_order_5"));
    }

    @Test
    void aTableWithDeadRowsOnlyIsListedAfterThoseWithPendingOnes() {
        Map<String, BacklogCounts> byTable = new LinkedHashMap<>();
        byTable.put("a", counts(0, 0));
        byTable.put("b", counts(0, 7));
        byTable.put("c", counts(3, 0));
        Backlog backlog = new Backlog(List.of(), 7, 3, 0, 0, Instant.EPOCH).withTables(byTable);
        assertThat(backlog.tables())
                .containsExactly(new Backlog.TableBacklog("c", 3, 0), new Backlog.TableBacklog("b", 0, 7));
    }
}
