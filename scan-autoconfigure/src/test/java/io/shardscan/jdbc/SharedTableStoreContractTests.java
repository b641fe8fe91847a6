package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.shardscan.core.spi.BacklogCounts;
import io.shardscan.core.spi.FetchRequest;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.task.Match;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.RowKey;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.testsupport.OrderTable;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;
import java.util.stream.LongStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Tasks that share one table through their {@code match}: every statement that selects rows by
 * their state selects only the task's own rows, and the index check asks for each task's own index
 * in the database's dialect. One small subclass per database.
 */
abstract class SharedTableStoreContractTests {

    static final int SHARDS = 4;
    static final int ROWS = 64;
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    OrderTable table;
    final TaskDefinition vip = task("vip", Match.of("biz_type", 3));
    final TaskDefinition normal = task("normal", Match.of("biz_type", 4, 5));

    abstract DataSource dataSource();

    /** What the index check asks for, for {@link #vip}, on this database. */
    abstract List<String> expectedIndexStatements();

    /** What it asks for, for {@link #normal}, once vip's index exists: nothing where they share it. */
    abstract List<String> expectedIndexStatementsOfASecondTask();

    static TaskDefinition task(String name, Match... match) {
        return TaskDefinition.builder(name)
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS)
                .match(List.of(match))
                .build();
    }

    /** Order i is of kind 3 + (i / 4) % 4, so that every shard holds every kind; 6 is no task's. */
    static int kind(long id) {
        return 3 + (int) ((id / 4) % 4);
    }

    @BeforeEach
    void setUp() {
        table = new OrderTable(dataSource()).recreate(SHARDS, false).coordinationTables();
        table.jdbc().execute("ALTER TABLE tb_order ADD COLUMN biz_type SMALLINT");
        table.jdbc().execute("ALTER TABLE tb_order ADD COLUMN kind VARCHAR(16)");
        table.jdbc().execute("ALTER TABLE tb_order ADD COLUMN deleted_at TIMESTAMP NULL");
        table.insert(ROWS, 1000, T0);
        List<Object[]> kinds = new ArrayList<>();
        for (long id = 1; id <= ROWS; id++) {
            kinds.add(new Object[] {
                kind(id), id % 3 == 0 ? "a" : id % 3 == 1 ? "o'k" : "c", id % 2 == 0 ? null : Timestamp.from(T0), id
            });
        }
        table.jdbc()
                .batchUpdate("UPDATE tb_order SET biz_type = ?, kind = ?, deleted_at = ? WHERE order_id = ?", kinds);
    }

    @Test
    void indexCheckAsksForTheIndexOfTheTasksRows() {
        // the index of a task without match holds every kind's rows: it is not vip's
        TaskDefinition all = task("all");
        new JdbcTaskStore(dataSource()).inspect(all).indexStatements().forEach(table.jdbc()::execute);
        assertThat(new JdbcTaskStore(dataSource()).inspect(all).indexPresent()).isTrue();

        List<String> statements = new JdbcTaskStore(dataSource()).inspect(vip).indexStatements();
        assertThat(statements).containsExactlyElementsOf(expectedIndexStatements());
        // the generated shard column, where there is one, exists already
        statements.stream().filter(s -> s.startsWith("CREATE INDEX")).forEach(table.jdbc()::execute);
        assertThat(new JdbcTaskStore(dataSource()).inspect(vip).indexPresent()).isTrue();

        List<String> second = new JdbcTaskStore(dataSource()).inspect(normal).indexStatements();
        assertThat(second.stream().filter(s -> s.startsWith("CREATE INDEX")))
                .containsExactlyElementsOf(expectedIndexStatementsOfASecondTask());
        second.stream().filter(s -> s.startsWith("CREATE INDEX")).forEach(table.jdbc()::execute);
        assertThat(new JdbcTaskStore(dataSource()).inspect(normal).indexPresent())
                .isTrue();
    }

    @Test
    void fetchAndFailedRowsSelectOnlyTheTasksRows() {
        TaskStore store = new JdbcTaskStore(dataSource());
        assertThat(store.fetch(vip, fresh(1)))
                .extracting(Row::id)
                .containsExactlyElementsOf(ids(id -> id % SHARDS == 1 && kind(id) == 3));
        assertThat(store.fetch(normal, fresh(1)))
                .extracting(Row::id)
                .containsExactlyElementsOf(ids(id -> id % SHARDS == 1 && (kind(id) == 4 || kind(id) == 5)));
        table.jdbc().update("UPDATE tb_order SET retry_count = 2 WHERE order_id IN (1, 5, 9, 13)");
        assertThat(List.of(1, 5, 9, 13))
                .extracting(SharedTableStoreContractTests::kind)
                .containsExactly(3, 4, 5, 6);
        assertThat(store.failedRows(vip, 1)).containsExactly(new RowKey(1, 1));
        assertThat(store.failedRows(normal, 1)).containsExactly(new RowKey(5, 5), new RowKey(9, 9));
        assertThat(store.fetch(vip, new FetchRequest(1, 1, 5, Duration.ZERO, Long.MIN_VALUE, 100)))
                .extracting(Row::id)
                .containsExactly(1L);
    }

    @Test
    void countsAndRequeueOfDeadRowsTouchOnlyTheTasksRows() {
        // orders 1-16 are dead: four of each kind
        table.jdbc().update("UPDATE tb_order SET status = 2 WHERE order_id <= 16");
        TaskStore store = new JdbcTaskStore(dataSource());
        BacklogCounts counts = store.admin().countBacklog(vip);
        assertThat(counts.dead()).isEqualTo(4);
        assertThat(counts.pending())
                .extracting(BacklogCounts.Group::retries, BacklogCounts.Group::count)
                .containsExactly(
                        tuple(0, (long) ids(id -> id > 16 && kind(id) == 3).size()));

        assertThat(store.admin().requeueDead(vip)).isEqualTo(4);
        assertThat(table.count("status = 2")).isEqualTo(12);
        assertThat(table.count("status = 0 AND order_id <= 16")).isEqualTo(4);
        assertThat(table.count("status = 0 AND order_id <= 16 AND biz_type = 3"))
                .isEqualTo(4);
        assertThat(store.admin().countBacklog(normal).dead()).isEqualTo(8);
    }

    @Test
    void textListsAndNullMatchTheirRowsAndTheirIndex() {
        TaskDefinition quoted = task("quoted", Match.of("kind", "a", "o'k"));
        TaskDefinition undeleted = task("undeleted", Match.isNull("deleted_at"));
        TaskStore store = new JdbcTaskStore(dataSource());
        assertThat(store.fetch(quoted, fresh(2)))
                .extracting(Row::id)
                .containsExactlyElementsOf(ids(id -> id % SHARDS == 2 && id % 3 != 2));
        assertThat(store.fetch(undeleted, fresh(2)))
                .extracting(Row::id)
                .containsExactlyElementsOf(ids(id -> id % SHARDS == 2 && id % 2 == 0));

        List<String> statements = new ArrayList<>(store.inspect(quoted).indexStatements());
        store.inspect(undeleted).indexStatements().stream()
                .filter(s -> s.startsWith("CREATE INDEX"))
                .forEach(statements::add);
        statements.forEach(table.jdbc()::execute);
        assertThat(new JdbcTaskStore(dataSource()).inspect(quoted).indexPresent())
                .isTrue();
        assertThat(new JdbcTaskStore(dataSource()).inspect(undeleted).indexPresent())
                .isTrue();
    }

    static FetchRequest fresh(int shard) {
        return new FetchRequest(shard, 0, 0, null, Long.MIN_VALUE, 100);
    }

    static List<Long> ids(LongPredicate which) {
        return LongStream.rangeClosed(1, ROWS).filter(which).boxed().toList();
    }
}
