package io.shardscan.mybatis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.tuple;

import io.shardscan.core.spi.FetchRequest;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.mybatis.MybatisOrders.AliasedOrder;
import io.shardscan.mybatis.MybatisOrders.Channel;
import io.shardscan.mybatis.MybatisOrders.Order;
import io.shardscan.mybatis.MybatisOrders.OrderRecord;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.ibatis.builder.xml.XMLMapperBuilder;
import org.apache.ibatis.io.Resources;
import org.apache.ibatis.session.AutoMappingBehavior;
import org.apache.ibatis.session.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Rows fetched from H2 by the JDBC store, mapped through a MyBatis configuration built from mapper XML. */
class MybatisRowMapperTests {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private final DataSource dataSource = TestServers.h2("mybatis_row_mapper");
    private final TaskDefinition task = TaskDefinition.builder("orders")
            .table("tb_order")
            .idColumn("order_id")
            .shardKeyColumn("user_id")
            .shards(1)
            .build();
    private OrderTable table;
    private List<Row> rows;

    @BeforeEach
    void fetchRows() {
        table = MybatisOrders.create(dataSource, 1, 3);
        table.jdbc().update("UPDATE tb_order SET channel = NULL, phone_no = NULL WHERE order_id = 3");
        JdbcTaskStore store = new JdbcTaskStore(dataSource);
        assertThat(store.inspect(task).indexPresent()).isTrue();
        rows = store.fetch(task, new FetchRequest(0, 0, 0, null, Long.MIN_VALUE, 10));
        assertThat(rows).hasSize(3);
    }

    @Test
    void appliesTheResultMapThenAutoMapsCamelCaseColumns() throws IOException {
        MybatisRowMapper mapper = new MybatisRowMapper(configuration(true));
        List<Order> orders =
                rows.stream().map(row -> mapper.map(row, Order.class)).toList();
        assertThat(orders)
                .extracting(Order::getId, Order::getUserId, Order::getPhone, Order::getChannel, Order::getStatus)
                .containsExactly(
                        tuple(1L, 101L, "+15551", Channel.SMS, 0),
                        tuple(2L, 102L, "+15552", Channel.SMS, 0),
                        tuple(3L, 103L, null, null, 0));
        assertThat(orders.get(0).getUpdatedAt()).isEqualTo(LocalDateTime.ofInstant(T0, ZoneId.systemDefault()));
    }

    @Test
    void buildsRecordsThroughTheCanonicalConstructor() throws IOException {
        MybatisRowMapper mapper = new MybatisRowMapper(configuration(true));
        assertThat(rows.stream().map(row -> mapper.map(row, OrderRecord.class)))
                .containsExactly(
                        new OrderRecord(1, 101, "+15551", Channel.SMS, T0),
                        new OrderRecord(2, 102, "+15552", Channel.SMS, T0),
                        new OrderRecord(3, 103, null, null, T0));
    }

    @Test
    void leavesUnderscoreColumnsUnmappedWithoutCamelCase() throws IOException {
        MybatisRowMapper mapper = new MybatisRowMapper(configuration(false));
        Order order = mapper.map(rows.get(0), Order.class);
        assertThat(order.getId()).isEqualTo(1);
        assertThat(order.getPhone()).isEqualTo("+15551");
        assertThat(order.getUserId()).isZero();
        assertThat(order.getUpdatedAt()).isNull();
        assertThat(order.getChannel()).isEqualTo(Channel.SMS);
        assertThat(mapper.map(rows.get(0), OrderRecord.class))
                .isEqualTo(new OrderRecord(1, 0, "+15551", Channel.SMS, null));
    }

    @Test
    void mapsOnlyTheResultMapWhenAutoMappingIsOff() throws IOException {
        Configuration configuration = configuration(true);
        configuration.setAutoMappingBehavior(AutoMappingBehavior.NONE);
        Order order = new MybatisRowMapper(configuration).map(rows.get(1), Order.class);
        assertThat(order.getId()).isEqualTo(2);
        assertThat(order.getPhone()).isEqualTo("+15552");
        assertThat(order.getUserId()).isZero();
        assertThat(order.getChannel()).isNull();
    }

    @Test
    void autoMapsTypesKnownOnlyByAlias() throws IOException {
        Configuration configuration = configuration(true);
        configuration.getTypeAliasRegistry().registerAlias("aliasedOrder", AliasedOrder.class);
        MybatisRowMapper mapper = new MybatisRowMapper(configuration);
        assertThat(mapper.supports(AliasedOrder.class)).isTrue();
        AliasedOrder order = mapper.map(rows.get(1), AliasedOrder.class);
        assertThat(order.getOrderId()).isEqualTo(2);
        assertThat(order.getPhoneNo()).isEqualTo("+15552");
    }

    @Test
    void supportsOnlyResultMapTypesAndAliasTargets() throws IOException {
        MybatisRowMapper mapper = new MybatisRowMapper(configuration(true));
        assertThat(mapper.supports(Order.class)).isTrue();
        assertThat(mapper.supports(OrderRecord.class)).isTrue();
        // built-in aliases name JDK types; those keep the starter's own binding
        assertThat(mapper.supports(Map.class)).isFalse();
        assertThat(mapper.supports(java.util.HashMap.class)).isFalse();
        assertThat(mapper.supports(String.class)).isFalse();
        assertThat(mapper.supports(AliasedOrder.class)).isFalse();
        assertThat(mapper.supports(Row.class)).isFalse();
        assertThatIllegalArgumentException()
                .isThrownBy(() -> mapper.map(rows.get(0), AliasedOrder.class))
                .withMessageContaining("is not a MyBatis result type");
    }

    @Test
    void failsTheRowNamingTheColumnItCannotConvert() throws IOException {
        table.jdbc().execute("UPDATE tb_order SET channel = 'FAX' WHERE order_id = 1");
        Row row = new JdbcTaskStore(dataSource)
                .fetch(task, new FetchRequest(0, 0, 0, null, Long.MIN_VALUE, 1))
                .get(0);
        MybatisRowMapper mapper = new MybatisRowMapper(configuration(true));
        assertThatIllegalArgumentException()
                .isThrownBy(() -> mapper.map(row, Order.class))
                .withMessageContaining("FAX");
        Row wrongType = new Row(1, 1, 0, Map.of("order_id", 1L, "updated_at", "yesterday"));
        assertThatIllegalArgumentException()
                .isThrownBy(() -> mapper.map(wrongType, OrderRecord.class))
                .withMessageContaining("column 'updated_at'")
                .withMessageContaining(Instant.class.getName());
    }

    static Configuration configuration(boolean camelCase) throws IOException {
        Configuration configuration = new Configuration();
        configuration.setMapUnderscoreToCamelCase(camelCase);
        try (InputStream xml = Resources.getResourceAsStream(MybatisOrders.MAPPER)) {
            new XMLMapperBuilder(xml, configuration, MybatisOrders.MAPPER, configuration.getSqlFragments()).parse();
        }
        return configuration;
    }
}
