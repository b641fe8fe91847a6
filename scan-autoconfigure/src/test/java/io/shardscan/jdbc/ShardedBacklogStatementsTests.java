package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.shardscan.core.ShardedTablesStore;
import io.shardscan.core.spi.BacklogCounts;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.task.Tables;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.testsupport.CountingDataSource;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The backlog count of a sharded task of many tables in two H2 databases sends a statement per database
 * (and per {@link JdbcTaskAdmin#MAX_TABLES} tables of one), not one per table, and counts each table as
 * its own count would.
 */
class ShardedBacklogStatementsTests {

    static final int IN_A = JdbcTaskAdmin.MAX_TABLES + 60;
    static final int IN_B = 100;

    @Test
    void countsTheBacklogOfManyTablesWithAStatementPerDatabase() {
        CountingDataSource a = new CountingDataSource(TestServers.h2("sharded_backlog_a"));
        CountingDataSource b = new CountingDataSource(TestServers.h2("sharded_backlog_b"));
        List<Tables.Table> tables = new ArrayList<>();
        for (int i = 0; i < IN_A + IN_B; i++) {
            tables.add(new Tables.Table("tb_backlog_" + i, i < IN_A ? "a" : "b"));
            JdbcTemplate jdbc = new JdbcTemplate(i < IN_A ? a.target() : b.target());
            jdbc.execute("DROP TABLE IF EXISTS tb_backlog_" + i);
            jdbc.execute("CREATE TABLE tb_backlog_" + i + " (order_id BIGINT PRIMARY KEY, user_id BIGINT NOT NULL,"
                    + " status SMALLINT NOT NULL DEFAULT 0, retry_count INT NOT NULL DEFAULT 0,"
                    + " updated_at TIMESTAMP NOT NULL, last_error VARCHAR(512))");
        }
        // table 7 in a's first statement, the last of a in its second, one of b
        insert(a, 7, PENDING, 0, 0, 0, 1);
        insert(a, 7, DEAD, 3, 3);
        insert(a, IN_A - 1, PENDING, 1, 1, 1);
        insert(b, IN_A + 3, PENDING, 0);
        TaskDefinition task = TaskDefinition.builder("sharded-backlog")
                .tables(tables)
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(2)
                .build();
        TaskStore inA = new JdbcTaskStore(a.dataSource());
        TaskStore inB = new JdbcTaskStore(b.dataSource());
        ShardedTablesStore store = ShardedTablesStore.of(task, inA, source -> source.equals("a") ? inA : inB);
        // the first count also reads each table's columns once
        store.admin().countBacklogByTable(task);

        long before = a.total() + b.total();
        Map<String, BacklogCounts> counts = store.admin().countBacklogByTable(task);
        long statements = a.total() + b.total() - before;

        // a's tables in two statements (more than MAX_TABLES), b's in one
        int expected = (IN_A + JdbcTaskAdmin.MAX_TABLES - 1) / JdbcTaskAdmin.MAX_TABLES + 1;
        assertThat(statements)
                .as("statements of one count of %d tables in two databases", IN_A + IN_B)
                .isEqualTo(expected);
        assertThat(counts).hasSize(IN_A + IN_B);
        assertThat(counts.keySet()).first().isEqualTo("tb_backlog_0");
        assertThat(counts.get("tb_backlog_7").pending())
                .extracting(BacklogCounts.Group::retries, BacklogCounts.Group::count)
                .containsExactlyInAnyOrder(tuple(0, 3L), tuple(1, 1L));
        assertThat(counts.get("tb_backlog_7").dead()).isEqualTo(2);
        assertThat(counts.get("tb_backlog_" + (IN_A - 1)).pending())
                .singleElement()
                .satisfies(group -> assertThat(group.count()).isEqualTo(3));
        assertThat(counts.get("tb_backlog_" + (IN_A + 3)).pending())
                .singleElement()
                .satisfies(group -> assertThat(group.count()).isEqualTo(1));
        assertThat(counts.get("tb_backlog_8").pending()).isEmpty();
        assertThat(counts.get("tb_backlog_8").dead()).isZero();
        assertThat(counts.get("tb_backlog_8").countedAt()).isNotNull();
    }

    static final int PENDING = 0;
    static final int DEAD = 2;

    /** Rows of table {@code table} in {@code status}, one per retry count given. */
    private static void insert(CountingDataSource data, int table, int status, int... retries) {
        JdbcTemplate jdbc = new JdbcTemplate(data.target());
        Integer next = jdbc.queryForObject("SELECT COUNT(*) FROM tb_backlog_" + table, Integer.class);
        for (int retry : retries) {
            next++;
            jdbc.update(
                    "INSERT INTO tb_backlog_" + table + " (order_id, user_id, status, retry_count, updated_at)"
                            + " VALUES (?, ?, ?, ?, ?)",
                    next,
                    next,
                    status,
                    retry,
                    OrderTable.utc(Instant.now()));
        }
    }
}
