package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.spi.FetchRequest;
import io.shardscan.core.spi.SchemaReport;
import io.shardscan.core.task.KeyType;
import io.shardscan.core.task.Outcome;
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
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Text and UUID shard keys ({@code shard-key-type: text}) on PostgreSQL, MariaDB and H2: the database
 * computes the shard Java computes for a wake-up, the printed index makes the fetch an index scan,
 * and the rows of one key run one at a time in id order, a failed row holding the key's later rows.
 */
@ServerTests
class TextShardKeyTests {

    static final int SHARDS = 8;
    static final int ROWS = 600;

    @RegisterExtension
    final Engines engines = new Engines();

    static Stream<Arguments> databases() {
        return Stream.of(
                Arguments.of("postgresql", (Supplier<DataSource>) () -> TestServers.postgresDatabase("text_keys")),
                Arguments.of("mariadb", (Supplier<DataSource>) () -> TestServers.mariadbDatabase("text_keys")),
                Arguments.of("h2", (Supplier<DataSource>) () -> TestServers.h2("text_keys")));
    }

    static TaskDefinition task(String keyColumn) {
        return TaskDefinition.builder("events")
                .table("tb_event")
                .idColumn("event_id")
                .shardKeyColumn(keyColumn)
                .shardKeyType(KeyType.TEXT)
                .shards(SHARDS)
                .workers(4)
                .tiers(List.of(new Tier(0, 0, Duration.ofMillis(200)), new Tier(1, 5, Duration.ofMillis(300))))
                .build();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void theDatabaseShardsATextOrUuidKeyAsJavaDoes(String database, Supplier<DataSource> source) throws SQLException {
        DataSource dataSource = source.get();
        JdbcTemplate jdbc = recreate(dataSource);
        SqlDialect dialect = SqlDialect.detect(dataSource);
        for (String column : List.of("tenant", "account")) {
            String sql = "SELECT " + column + ", " + dialect.shardOf(task(column), column) + " FROM tb_event";
            List<Map<String, Object>> rows = jdbc.queryForList(sql);
            assertThat(rows).hasSize(ROWS);
            for (Map<String, Object> row : rows) {
                Object key = row.values().iterator().next();
                int shard = ((Number) new ArrayList<>(row.values()).get(1)).intValue();
                assertThat(shard)
                        .as("%s: shard of %s %s", database, column, key)
                        .isEqualTo(TextKeys.shardOf(key, SHARDS));
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void thePrintedIndexServesTheFetchAndAKeysRowsRunInIdOrder(String database, Supplier<DataSource> source)
            throws SQLException {
        DataSource dataSource = source.get();
        recreate(dataSource);
        TaskDefinition task = task("tenant");
        JdbcTaskStore store = new JdbcTaskStore(dataSource);
        SchemaReport before = store.inspect(task);
        assertThat(before.problems()).isEmpty();
        assertThat(before.indexPresent()).isFalse();
        before.indexStatements().forEach(new JdbcTemplate(dataSource)::execute);
        SchemaReport after = new JdbcTaskStore(dataSource).inspect(task);
        assertThat(after.indexPresent())
                .as("%s: %s", database, before.indexStatements())
                .isTrue();
        assertThat(after.warnings()).isEmpty();
        assertThat(new JdbcTaskStore(dataSource).inspect(task("account")).problems())
                .isEmpty();
        if (database.equals("postgresql")) {
            assertThat(explainFetch(dataSource, task)).contains("tb_event_scan_idx");
        }

        new OrderTable(dataSource).coordinationTables();
        // every 25th row fails once: its key's later rows wait for it
        Map<String, List<Long>> done = new ConcurrentHashMap<>();
        Set<Long> failedOnce = ConcurrentHashMap.newKeySet();
        engines.start("node-a", dataSource, task, (TaskHandler.PerRow) (row, ctx) -> {
            if (row.id() % 25 == 0 && failedOnce.add(row.id())) {
                return Outcome.retryLater("failed once by the test");
            }
            done.computeIfAbsent((String) row.columns().get("tenant"), k -> new ArrayList<>())
                    .add(row.id());
            return Outcome.done();
        });

        await().until(() -> done.values().stream().mapToInt(List::size).sum() == ROWS);
        assertThat(failedOnce).hasSize(ROWS / 25);
        done.forEach((tenant, ids) ->
                assertThat(ids).as("%s: ids of %s", database, tenant).isSorted());
        assertThat(done.values().stream().flatMap(List::stream).distinct().count())
                .isEqualTo(ROWS);
    }

    @org.junit.jupiter.api.Test
    void aTextColumnKeyedAsAWholeNumberFailsNamingShardKeyType() throws SQLException {
        DataSource dataSource = TestServers.h2("text_keys");
        recreate(dataSource);
        TaskDefinition whole = TaskDefinition.builder("events")
                .table("tb_event")
                .idColumn("event_id")
                .shardKeyColumn("tenant")
                .build();
        assertThat(new JdbcTaskStore(dataSource).inspect(whole).problems())
                .singleElement()
                .asString()
                .contains("column TENANT (scan.tasks.events.shard-key-column) is of type CHARACTER VARYING")
                .contains("set scan.tasks.events.shard-key-type: text");
        TaskDefinition text = TaskDefinition.builder("events")
                .table("tb_event")
                .idColumn("event_id")
                .shardKeyColumn("retry_count")
                .shardKeyType(KeyType.TEXT)
                .build();
        assertThat(new JdbcTaskStore(dataSource).inspect(text).problems())
                .singleElement()
                .asString()
                .contains("but scan.tasks.events.shard-key-type is text: a text shard key needs a text or UUID column");
    }

    private static JdbcTemplate recreate(DataSource dataSource) throws SQLException {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        String product;
        try (Connection connection = dataSource.getConnection()) {
            product = connection.getMetaData().getDatabaseProductName().toLowerCase(java.util.Locale.ROOT);
        }
        boolean mysql = product.contains("maria") || product.contains("mysql");
        jdbc.execute("DROP TABLE IF EXISTS tb_event");
        jdbc.execute("CREATE TABLE tb_event (event_id BIGINT PRIMARY KEY, tenant VARCHAR(64) NOT NULL,"
                + " account UUID NOT NULL, status SMALLINT NOT NULL DEFAULT 0, retry_count INT NOT NULL DEFAULT 0,"
                + " updated_at " + (mysql ? "DATETIME(3)" : "TIMESTAMP") + " NOT NULL, last_error VARCHAR(512))");
        List<Object[]> rows = new ArrayList<>();
        LocalDateTime past = LocalDateTime.ofInstant(Instant.now().minusSeconds(5), ZoneOffset.UTC);
        for (long id = 1; id <= ROWS; id++) {
            // ASCII, non-ASCII and UUID-like tenants, 30 of them
            String tenant =
                    switch ((int) (id % 3)) {
                        case 0 -> "tenant-" + id % 30;
                        case 1 -> "mandant-ü-" + id % 30;
                        default ->
                            UUID.nameUUIDFromBytes(("t" + id % 30).getBytes()).toString();
                    };
            UUID account = UUID.nameUUIDFromBytes(("a" + id % 40).getBytes());
            rows.add(new Object[] {id, tenant, mysql ? account.toString() : account, past});
        }
        jdbc.batchUpdate("INSERT INTO tb_event (event_id, tenant, account, updated_at) VALUES (?, ?, ?, ?)", rows);
        return jdbc;
    }

    private static String explainFetch(DataSource dataSource, TaskDefinition task) throws SQLException {
        SqlDialect dialect = SqlDialect.detect(dataSource);
        TaskSql sql = TaskSql.of(
                task, new TableInspector(dataSource, dialect).inspect(task).names(), dialect);
        try (Connection connection = dataSource.getConnection()) {
            connection.createStatement().execute("SET enable_seqscan = off");
            FetchRequest request = new FetchRequest(1, 0, 0, null, Long.MIN_VALUE, 100);
            try (PreparedStatement explain =
                    connection.prepareStatement("EXPLAIN " + sql.fetch().sql(request))) {
                explain.setInt(1, 1);
                explain.setLong(2, Long.MIN_VALUE);
                explain.setInt(3, 100);
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
