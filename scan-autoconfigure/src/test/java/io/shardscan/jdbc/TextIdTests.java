package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.spi.FailureGroup;
import io.shardscan.core.spi.FetchRequest;
import io.shardscan.core.spi.Requeue;
import io.shardscan.core.spi.SchemaReport;
import io.shardscan.core.spi.WriteBack;
import io.shardscan.core.task.KeyType;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.TextKeys;
import io.shardscan.core.task.Tier;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Text and UUID ids ({@code id-type: text}) on PostgreSQL, MariaDB and H2: the fetch pages through
 * them in binary order, page after page, whatever the column's collation; the printed index serves
 * that fetch; a key's rows run in that order, a failed one holding its key's later rows; the
 * write-back, a failed row's reading and a requeue find rows by their text.
 */
@ServerTests
class TextIdTests {

    static final int SHARDS = 4;
    static final int ROWS = 400;
    /** Ids whose binary order differs from a language collation's: case, punctuation, an accent. */
    static final List<String> PREFIXES = List.of("a", "B", "a-b", "ab", "Z", "é", "_x");

    @RegisterExtension
    final Engines engines = new Engines();

    static Stream<Arguments> tables() {
        Supplier<DataSource> postgres = () -> TestServers.postgresDatabase("text_ids");
        Supplier<DataSource> mariadb = () -> TestServers.mariadbDatabase("text_ids");
        Supplier<DataSource> h2 = () -> TestServers.h2("text_ids");
        return Stream.of(
                Arguments.of("postgresql", "text", postgres),
                Arguments.of("postgresql", "uuid", postgres),
                Arguments.of("mariadb", "text", mariadb),
                Arguments.of("mariadb", "uuid", mariadb),
                Arguments.of("h2", "text", h2),
                Arguments.of("h2", "uuid", h2));
    }

    static TaskDefinition task() {
        return TaskDefinition.builder("docs")
                .table("tb_doc")
                .idColumn("doc_id")
                .idType(KeyType.TEXT)
                .shardKeyColumn("owner")
                .shardKeyType(KeyType.TEXT)
                .shards(SHARDS)
                .pageSize(25)
                .workers(4)
                .tiers(List.of(new Tier(0, 0, Duration.ofMillis(200)), new Tier(1, 5, Duration.ofMillis(300))))
                .build();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("tables")
    void pagesTextIdsInBinaryOrderAndAKeysRowsRunInThatOrder(String database, String ids, Supplier<DataSource> source)
            throws SQLException {
        DataSource dataSource = source.get();
        List<String> written = recreate(dataSource, ids);
        TaskDefinition task = task();
        SchemaReport before = new JdbcTaskStore(dataSource).inspect(task);
        assertThat(before.problems()).isEmpty();
        before.indexStatements().forEach(new JdbcTemplate(dataSource)::execute);
        assertThat(new JdbcTaskStore(dataSource).inspect(task).indexPresent())
                .as("%s: %s", database, before.indexStatements())
                .isTrue();
        if (database.equals("postgresql")) {
            // a pass's first page (no position, as the idle probe asks) and a later one read the index in order
            assertThat(explainFetch(dataSource, task, null))
                    .contains("tb_doc_scan_idx")
                    .doesNotContain("Sort");
            assertThat(explainFetch(dataSource, task, written.get(0)))
                    .contains("tb_doc_scan_idx")
                    .doesNotContain("Sort");
        }

        // one shard's pages straight from the store: every row once, in the order Java sorts their text
        JdbcTaskStore store = new JdbcTaskStore(dataSource);
        List<String> paged = new ArrayList<>();
        for (int shard = 0; shard < SHARDS; shard++) {
            List<String> ofShard = new ArrayList<>();
            String after = null;
            while (true) {
                List<Row> page = store.fetch(task, new FetchRequest(shard, 0, 0, null, null, 0, after, 25, List.of()));
                page.forEach(row -> ofShard.add(row.textId()));
                if (page.size() < 25) {
                    break;
                }
                after = page.get(page.size() - 1).textId();
            }
            assertThat(ofShard).as("%s %s: shard %d", database, ids, shard).isSorted();
            paged.addAll(ofShard);
        }
        assertThat(paged).containsExactlyInAnyOrderElementsOf(written);

        new OrderTable(dataSource).coordinationTables();
        // every 9th row fails once: its key's later rows wait for it
        Map<String, List<String>> done = new ConcurrentHashMap<>();
        Set<String> failedOnce = ConcurrentHashMap.newKeySet();
        AtomicInteger handled = new AtomicInteger();
        engines.start("node-a", dataSource, task, (TaskHandler.PerRow) (row, ctx) -> {
            handled.incrementAndGet();
            if (written.indexOf(row.textId()) % 9 == 0 && failedOnce.add(row.textId())) {
                return Outcome.retryLater("failed once by the test");
            }
            done.computeIfAbsent(String.valueOf(row.columns().get("owner")), k -> new ArrayList<>())
                    .add(row.textId());
            return Outcome.done();
        });

        await().until(() -> done.values().stream().mapToInt(List::size).sum() == ROWS);
        assertThat(failedOnce).hasSize((ROWS + 8) / 9);
        done.forEach((owner, rows) ->
                assertThat(rows).as("%s %s: ids of %s", database, ids, owner).isSorted());
        assertThat(done.values().stream().flatMap(List::stream)).containsExactlyInAnyOrderElementsOf(written);
        assertThat(handled.get()).isEqualTo(ROWS + failedOnce.size());
        assertThat(new JdbcTemplate(dataSource)
                        .queryForObject("SELECT COUNT(*) FROM tb_doc WHERE status = 1", Long.class))
                .isEqualTo(ROWS);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("tables")
    void aDeadRowIsFoundReadAndRequeuedByItsText(String database, String ids, Supplier<DataSource> source)
            throws SQLException {
        DataSource dataSource = source.get();
        List<String> written = recreate(dataSource, ids);
        new OrderTable(dataSource).coordinationTables();
        TaskDefinition task = task();
        JdbcTaskStore store = new JdbcTaskStore(dataSource);
        assertThat(store.inspect(task).problems()).isEmpty();
        String id = written.get(3);
        int shard = TextKeys.shardOf("owner-3", SHARDS);
        Row row = store.fetch(task, new FetchRequest(shard, 0, 0, null, null, 0, null, ROWS, List.of())).stream()
                .filter(r -> r.textId().equals(id))
                .findFirst()
                .orElseThrow();
        long epoch = store.fence(task, shard, "node-a");
        assertThat(store.writeBack(
                        task,
                        new WriteBack(
                                shard,
                                epoch,
                                Instant.now(),
                                List.of(),
                                List.of(),
                                List.of(new WriteBack.Failure(row.idValue(), 1, "dead by the test")))))
                .isTrue();

        List<FailureGroup> groups = store.admin().failureGroups(task, true, 0, 10, 3);
        assertThat(groups).singleElement().satisfies(group -> assertThat(List.<Object>copyOf(group.exampleIds()))
                .containsExactly(id));
        Map<String, Object> read = store.admin().readRow(task, id);
        assertThat(read).isNotNull();
        assertThat(String.valueOf(read.entrySet().stream()
                        .filter(e -> e.getKey().equalsIgnoreCase("last_error"))
                        .findFirst()
                        .orElseThrow()
                        .getValue()))
                .isEqualTo("dead by the test");
        if (ids.equals("uuid") && !database.equals("mariadb")) {
            assertThatThrownBy(() -> store.admin().readRow(task, "not-a-uuid"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Row id 'not-a-uuid' is not an id of table")
                    .hasMessageContaining("its ids are the UUIDs of column");
        }
        assertThat(store.admin().requeue(task, Requeue.rows(true, List.of(id)))).isEqualTo(1);
        assertThat(new JdbcTemplate(dataSource)
                        .queryForObject("SELECT COUNT(*) FROM tb_doc WHERE status = 2", Long.class))
                .isZero();
    }

    @Test
    void aCaseInsensitiveMariaDbIdFailsNamingTheBinaryCollation() throws SQLException {
        DataSource dataSource = TestServers.mariadbDatabase("text_ids");
        recreate(dataSource, "text");
        new JdbcTemplate(dataSource)
                .execute("ALTER TABLE tb_doc MODIFY doc_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci"
                        + " NOT NULL");
        assertThat(new JdbcTaskStore(dataSource).inspect(task()).problems())
                .singleElement()
                .asString()
                .contains("column doc_id (scan.tasks.docs.id-column) is of type varchar(64) with collation"
                        + " utf8mb4_general_ci")
                .contains("ALTER TABLE tb_doc MODIFY doc_id varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
                        + " NOT NULL");
    }

    /**
     * A table of {@link #ROWS} rows keyed by text ids (or UUIDs) in a collation other than binary where
     * the database has one, whose 23 owners are text too; returns the ids in insertion order.
     */
    private static List<String> recreate(DataSource dataSource, String ids) throws SQLException {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        String product;
        try (Connection connection = dataSource.getConnection()) {
            product = connection.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
        }
        boolean mysql = product.contains("maria") || product.contains("mysql");
        boolean postgres = product.contains("postgres");
        String idType;
        if (ids.equals("uuid")) {
            idType = mysql ? "CHAR(36) CHARACTER SET ascii COLLATE ascii_bin" : "UUID";
        } else if (mysql) {
            idType = "VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin";
        } else if (postgres) {
            // a language collation orders "a-b" after "ab" and "B" between "a" and "Z": the scan must not
            List<String> language = jdbc.queryForList(
                    "SELECT collname FROM pg_collation WHERE collname IN ('en-x-icu', 'en_US.utf8', 'en_US')"
                            + " ORDER BY collname",
                    String.class);
            idType = "VARCHAR(64)" + (language.isEmpty() ? "" : " COLLATE \"" + language.get(0) + "\"");
        } else {
            idType = "VARCHAR(64)";
        }
        jdbc.execute("DROP TABLE IF EXISTS tb_doc");
        // MariaDB refuses a CHAR column in a generated column's expression unless it is trimmed
        String ownerType = mysql && ids.equals("uuid") ? "CHAR(12)" : "VARCHAR(64)";
        jdbc.execute("CREATE TABLE tb_doc (doc_id " + idType + " PRIMARY KEY, owner " + ownerType + " NOT NULL,"
                + " status SMALLINT NOT NULL DEFAULT 0, retry_count INT NOT NULL DEFAULT 0,"
                + " updated_at " + (mysql ? "DATETIME(3)" : "TIMESTAMP") + " NOT NULL, last_error VARCHAR(512))");
        List<String> written = new ArrayList<>();
        List<Object[]> rows = new ArrayList<>();
        LocalDateTime past = LocalDateTime.ofInstant(Instant.now().minusSeconds(5), ZoneOffset.UTC);
        for (int i = 0; i < ROWS; i++) {
            String id = ids.equals("uuid")
                    ? UUID.nameUUIDFromBytes(("doc" + i).getBytes()).toString()
                    : PREFIXES.get(i % PREFIXES.size()) + "-" + Integer.toString(i * 7919 % 1000, 36);
            written.add(id);
            Object bound = ids.equals("uuid") && !mysql ? UUID.fromString(id) : id;
            rows.add(new Object[] {bound, "owner-" + i % 23, past});
        }
        jdbc.batchUpdate("INSERT INTO tb_doc (doc_id, owner, updated_at) VALUES (?, ?, ?)", rows);
        return written;
    }

    private static String explainFetch(DataSource dataSource, TaskDefinition task, @Nullable String after)
            throws SQLException {
        SqlDialect dialect = SqlDialect.detect(dataSource);
        TableNames names = new TableInspector(dataSource, dialect).inspect(task).names();
        TaskSql sql = TaskSql.of(task, names, dialect);
        try (Connection connection = dataSource.getConnection()) {
            connection.createStatement().execute("SET enable_seqscan = off");
            FetchRequest request = new FetchRequest(1, 0, 0, null, null, 0, after, 100, List.of());
            try (PreparedStatement explain =
                    connection.prepareStatement("EXPLAIN " + sql.fetch().sql(request))) {
                explain.setInt(1, 1);
                int index = 2;
                if (after != null) {
                    dialect.bindId(explain, index++, after, names);
                }
                explain.setInt(index, 100);
                StringBuilder plan = new StringBuilder();
                try (ResultSet rs = explain.executeQuery()) {
                    while (rs.next()) {
                        plan.append(rs.getString(1)).append('\n');
                    }
                }
                return plan.toString();
            }
        }
    }
}
