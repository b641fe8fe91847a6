package io.shardscan.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardscan.core.spi.FetchRequest;
import io.shardscan.core.task.IndexCheck;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.jdbc.JdbcTaskStore;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.core.ResolvableType;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The column types real schemas use, fetched by the task store from a real database and bound to a
 * handler's record: JSON into {@code String}, {@code uuid} into {@link UUID} and into {@code String}, an
 * enum column into a Java enum, binary into {@code byte[]}, {@code numeric} into {@link BigDecimal}, an
 * array into a {@code List}, a large text into {@code String}, NULL into a boxed type. One small
 * subclass per database gives the DDL and the literals.
 */
abstract class ColumnTypesContractTests {

    static final UUID REF = UUID.fromString("6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f");

    enum Channel {
        SMS,
        MAIL
    }

    /** What a user declares: each component named after its column. */
    record Message(
            long id,
            String doc,
            UUID ref,
            String refText,
            Channel channel,
            byte[] payload,
            BigDecimal amount,
            @Nullable List<Integer> tags,
            String body,
            @Nullable Integer note) {}

    final TaskDefinition task = TaskDefinition.builder("messages")
            .table("tb_message")
            .idColumn("id")
            .shardKeyColumn("user_id")
            .shards(1)
            .indexCheck(IndexCheck.OFF)
            .build();

    abstract DataSource dataSource();

    /** The table's DDL on this database: the engine's columns and the typed ones of {@link Message}. */
    abstract List<String> createTable();

    /** One row's values as this database's literals, in {@link Message}'s order from doc on. */
    abstract String insertValues();

    /** Whether this database has SQL arrays (MariaDB has none: its row's tags are NULL). */
    boolean hasArrays() {
        return true;
    }

    JdbcTemplate jdbc;

    @BeforeEach
    void createTableWithOneRow() {
        jdbc = new JdbcTemplate(dataSource());
        jdbc.execute("DROP TABLE IF EXISTS tb_message");
        createTable().forEach(jdbc::execute);
        jdbc.execute("INSERT INTO tb_message (id, user_id, status, retry_count, updated_at, doc, ref, ref_text,"
                + " channel, payload, amount, tags, body, note) VALUES (1, 7, 0, 0, CURRENT_TIMESTAMP, "
                + insertValues() + ", NULL)");
    }

    private Row fetchOne() {
        List<Row> rows =
                new JdbcTaskStore(dataSource()).fetch(task, new FetchRequest(0, 0, 0, null, Long.MIN_VALUE, 10));
        assertThat(rows).hasSize(1);
        return rows.get(0);
    }

    @Test
    void everyColumnBindsToTheTypeUsersDeclare() {
        Message message = (Message)
                RowBinder.forType(ResolvableType.forClass(Message.class)).bind(fetchOne());

        assertThat(message.id()).isEqualTo(1);
        // jsonb keeps its own key order and spacing
        assertThat(message.doc().replace(" ", "")).isIn("{\"to\":\"+155501\",\"n\":1}", "{\"n\":1,\"to\":\"+155501\"}");
        assertThat(message.ref()).isEqualTo(REF);
        assertThat(message.refText()).isEqualToIgnoringCase(REF.toString());
        assertThat(message.channel()).isEqualTo(Channel.MAIL);
        assertThat(message.payload()).containsExactly(1, 2, (byte) 0xff);
        assertThat(message.amount()).isEqualByComparingTo("1234.50");
        assertThat(message.tags()).isEqualTo(hasArrays() ? List.of(3, 1, 2) : null);
        assertThat(message.body()).isEqualTo("a long body");
        assertThat(message.note()).isNull();
    }

    @Test
    void aRowHoldsPlainJavaValuesNotTheDriversObjects() {
        Map<String, Object> columns = fetchOne().columns();

        assertThat(columns.get("doc")).isInstanceOf(String.class);
        assertThat(columns.get("payload")).isInstanceOf(byte[].class);
        assertThat(columns.get("body")).isInstanceOf(String.class);
        if (hasArrays()) {
            assertThat(columns.get("tags")).isInstanceOf(Object[].class);
        }
        assertThat(columns.values()).allSatisfy(value -> assertThat(
                        value == null ? "null" : value.getClass().getName())
                .as("a value of the driver's own class outlives neither the result set nor the driver's" + " version")
                .matches("null|\\[.*|java\\..*"));
    }

    @Test
    void theStartupCheckSeesWhatEachColumnCanBecome() {
        Map<String, String> held = new JdbcTaskStore(dataSource()).inspect(task).columnClasses();
        RowBinder message = RowBinder.forType(ResolvableType.forClass(Message.class));

        for (int i = 0; i < message.members().size(); i++) {
            String column =
                    message.members().get(i).replaceAll("([A-Z])", "_$1").toLowerCase(java.util.Locale.ROOT);
            assertThat(RowBinder.convertible(
                            held.get(column), message.memberTypes().get(i)))
                    .as(
                            "%s (a row holds %s) binds to %s",
                            column, held.get(column), message.memberTypes().get(i))
                    .isTrue();
        }
        RowBinder wrong = RowBinder.forType(ResolvableType.forClass(WrongType.class));
        assertThat(RowBinder.convertible(held.get("doc"), wrong.memberTypes().get(1)))
                .as("doc (a row holds %s) binds to an enum of other names", held.get("doc"))
                .isTrue();
        assertThat(RowBinder.convertible(
                        held.get("payload"), wrong.memberTypes().get(1)))
                .as("payload (a row holds %s) cannot become an enum", held.get("payload"))
                .isFalse();
    }

    /** A column that cannot become the declared type fails the row naming the column and a type that works. */
    record WrongType(long id, Channel doc) {}

    @Test
    void aColumnThatCannotConvertNamesTheColumnAndATypeThatWorks() {
        RowBinder binder = RowBinder.forType(ResolvableType.forClass(WrongType.class));
        Row row = fetchOne();

        assertThatThrownBy(() -> binder.bind(row))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'doc'")
                .hasMessageContaining("e.g. String");
    }
}
