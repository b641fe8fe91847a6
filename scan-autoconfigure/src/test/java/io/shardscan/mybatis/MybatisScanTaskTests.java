package io.shardscan.mybatis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.shardscan.annotation.ScanTask;
import io.shardscan.autoconfigure.ScanAutoConfiguration;
import io.shardscan.core.task.ScanContext;
import io.shardscan.mybatis.MybatisOrders.Channel;
import io.shardscan.mybatis.MybatisOrders.Order;
import io.shardscan.mybatis.MybatisOrders.OrderRecord;
import io.shardscan.testsupport.OrderTable;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.ibatis.session.SqlSessionFactory;
import org.junit.jupiter.api.Test;
import org.mybatis.spring.boot.autoconfigure.MybatisAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** @ScanTask handlers taking MyBatis result types, in an application with MyBatis auto-configured. */
class MybatisScanTaskTests {

    private static final int ORDERS = 6;

    private final String url = "jdbc:h2:mem:mybatis-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    private final OrderTable table = MybatisOrders.create(new DriverManagerDataSource(url, "sa", ""), 4, ORDERS);

    private final ApplicationContextRunner scan = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, ScanAutoConfiguration.class))
            .withPropertyValues(
                    "spring.datasource.url=" + url,
                    "scan.lease-ttl=1s",
                    "scan.renew-interval=200ms",
                    "scan.tasks.order-sms.table=tb_order",
                    "scan.tasks.order-sms.id-column=order_id",
                    "scan.tasks.order-sms.shard-key-column=user_id",
                    "scan.tasks.order-sms.shards=4");

    private final ApplicationContextRunner withMybatis = scan.withConfiguration(
                    AutoConfigurations.of(MybatisAutoConfiguration.class))
            .withPropertyValues(
                    "mybatis.mapper-locations=classpath:" + MybatisOrders.MAPPER,
                    "mybatis.configuration.map-underscore-to-camel-case=true");

    @Test
    void bindsRowsThroughTheResultMapOfTheHandlersType() {
        withMybatis.withBean(BeanHandler.class).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(SqlSessionFactory.class);
            awaitAllDone();
            assertThat(context.getBean(BeanHandler.class).received)
                    .extracting(Order::getId, Order::getUserId, Order::getPhone, Order::getChannel)
                    .containsExactlyInAnyOrder(expected(Order.class));
        });
    }

    @Test
    void bindsBatchesOfRecordResultTypes() {
        withMybatis.withBean(RecordBatchHandler.class).run(context -> {
            assertThat(context).hasNotFailed();
            awaitAllDone();
            assertThat(context.getBean(RecordBatchHandler.class).received)
                    .extracting(OrderRecord::id, OrderRecord::userId, OrderRecord::phone, OrderRecord::channel)
                    .containsExactlyInAnyOrder(expected(OrderRecord.class));
        });
    }

    @Test
    void keepsTheBuiltInBindingForTypesMybatisDoesNotMap() {
        withMybatis.withBean(PlainHandler.class).run(context -> {
            assertThat(context).hasNotFailed();
            awaitAllDone();
            assertThat(context.getBean(PlainHandler.class).received)
                    .extracting(PlainOrder::orderId, PlainOrder::phoneNo)
                    .contains(tuple(1L, "+15551"), tuple(6L, "+15556"));
        });
    }

    @Test
    void bindsWithoutMybatisOnTheClassPath() {
        // hides MyBatis from the guard; mybatis-spring-boot's own detector still loads through the parent
        scan.withClassLoader(new FilteredClassLoader("org.apache.ibatis"))
                .withBean(PlainHandler.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    awaitAllDone();
                    assertThat(context.getBean(PlainHandler.class).received).hasSize(ORDERS);
                });
    }

    private void awaitAllDone() {
        await().until(() -> table.count("status = 1") == ORDERS);
        assertThat(table.count("retry_count > 0")).isZero();
    }

    private static org.assertj.core.groups.Tuple[] expected(Class<?> type) {
        org.assertj.core.groups.Tuple[] rows = new org.assertj.core.groups.Tuple[ORDERS];
        for (int i = 1; i <= ORDERS; i++) {
            rows[i - 1] = tuple((long) i, 100L + i, "+1555" + i, Channel.SMS);
        }
        return rows;
    }

    static class BeanHandler {
        final Queue<Order> received = new ConcurrentLinkedQueue<>();

        @ScanTask("order-sms")
        public void send(Order order) {
            received.add(order);
        }
    }

    static class RecordBatchHandler {
        final Queue<OrderRecord> received = new ConcurrentLinkedQueue<>();

        @ScanTask("order-sms")
        public void send(List<OrderRecord> orders, ScanContext context) {
            received.addAll(orders);
        }
    }

    static class PlainHandler {
        final Queue<PlainOrder> received = new ConcurrentLinkedQueue<>();

        @ScanTask("order-sms")
        public void send(PlainOrder order) {
            received.add(order);
        }
    }

    /** Not in any result map: bound by column name as without MyBatis. */
    record PlainOrder(long orderId, String phoneNo) {}
}
