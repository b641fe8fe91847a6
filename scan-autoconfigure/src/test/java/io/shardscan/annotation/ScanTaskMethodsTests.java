package io.shardscan.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardscan.core.task.InvalidTaskException;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.ScanContext;
import io.shardscan.core.task.TaskHandler;
import java.io.IOException;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

class ScanTaskMethodsTests {

    private static final LocalDateTime UPDATED = LocalDateTime.of(2024, 5, 1, 12, 30);
    private static final ScanContext CONTEXT = new ScanContext("orders", "node-1", 3, 17L, 1);

    private final Handlers handlers = new Handlers();

    @Test
    void bindsRecordThroughCanonicalConstructorConvertingColumnValues() throws Exception {
        Outcome outcome = perRow("record", Order.class).handle(row(7), CONTEXT);

        assertThat(outcome).isNull();
        assertThat(handlers.received)
                .containsExactly(new Order(
                        7L, 42L, 0, UPDATED, Timestamp.valueOf(UPDATED).toInstant(), null));
    }

    @Test
    void passesContextAndReturnsOutcome() throws Exception {
        Outcome outcome = perRow("withContext", Order.class, ScanContext.class).handle(row(7), CONTEXT);

        assertThat(outcome).isEqualTo(Outcome.retryLater("shard 3 epoch 17"));
    }

    @Test
    void bindsJavaBeanThroughSetters() throws Exception {
        perRow("bean", OrderBean.class).handle(row(8), CONTEXT);

        OrderBean bean = (OrderBean) handlers.received.get(0);
        assertThat(bean.getOrderId()).isEqualTo(8L);
        assertThat(bean.getUserId()).isEqualTo(42L);
        assertThat(bean.getUpdatedAt()).isEqualTo(UPDATED);
        assertThat(bean.getNote()).isEqualTo("untouched");
    }

    @Test
    void passesColumnsAsMap() throws Exception {
        perRow("map", Map.class).handle(row(9), CONTEXT);

        assertThat(handlers.received).containsExactly(row(9).columns());
    }

    @Test
    void passesNullColumnsInTheMap() throws Exception {
        Row fetched = new Row.Layout(List.of("order_id", "user_id", "last_error"))
                .row(11, 42, 0, new Object[] {11L, 42L, null});
        perRow("map", Map.class).handle(fetched, CONTEXT);

        assertThat(handlers.received)
                .singleElement()
                .asInstanceOf(InstanceOfAssertFactories.MAP)
                .hasSize(3)
                .containsEntry("last_error", null)
                .containsKeys("order_id", "user_id", "last_error");
    }

    @Test
    void passesRowAsIs() throws Exception {
        perRow("row", Row.class).handle(row(10), CONTEXT);

        assertThat(handlers.received).containsExactly(row(10));
    }

    @Test
    void passesLaneAsListAndSharesOutcome() throws Exception {
        TaskHandler handler = handler("batch", List.class);

        assertThat(handler).isInstanceOf(TaskHandler.Batch.class);
        Outcome outcome = ((TaskHandler.Batch) handler).handle(List.of(row(1), row(2)), CONTEXT);
        assertThat(outcome).isEqualTo(Outcome.skip());
        assertThat(handlers.received).containsExactly(List.of(order(1), order(2)));
    }

    @Test
    void passesLaneAndContext() throws Exception {
        TaskHandler.Batch handler = (TaskHandler.Batch) handler("batchWithContext", List.class, ScanContext.class);

        handler.handle(List.of(row(1)), CONTEXT);

        assertThat(handlers.received).containsExactly(List.of(order(1)), CONTEXT);
    }

    @Test
    void rethrowsHandlersOwnException() {
        TaskHandler.PerRow handler = perRow("fails", Order.class);

        assertThatThrownBy(() -> handler.handle(row(7), CONTEXT))
                .isInstanceOf(IOException.class)
                .hasMessage("downstream refused order 7");
    }

    @Test
    void rejectsMethodWithoutParameters() {
        assertUnusable("noParameters", "it takes 0 parameters");
    }

    @Test
    void rejectsMethodWithThreeParameters() {
        assertUnusable("threeParameters", "it takes 3 parameters", Order.class, ScanContext.class, String.class);
    }

    @Test
    void rejectsSecondParameterOtherThanContext() {
        assertUnusable(
                "secondNotContext", "its second parameter is String, not ScanContext", Order.class, String.class);
    }

    @Test
    void rejectsListWithoutElementType() {
        assertUnusable("rawList", "its List parameter has no element type", List.class);
        assertUnusable("wildcardList", "its List parameter has no element type", List.class);
    }

    @Test
    void rejectsOtherReturnTypes() {
        assertUnusable("returnsString", "it returns String: return void or Outcome", Order.class);
    }

    @Test
    void rejectsStaticAndPrivateMethods() {
        assertUnusable("staticHandler", "it is static", Order.class);
        assertUnusable("privateHandler", "it is private", Order.class);
    }

    @Test
    void rejectsRowTypesThatCannotTakeColumns() {
        assertUnusable("stringRow", "its row type java.lang.String is not a record or a JavaBean", String.class);
        assertUnusable(
                "noSetters",
                "its row type " + NoSetters.class.getName() + " is not a record and has no setters",
                NoSetters.class);
    }

    @Test
    void acceptsTransactionalHandlers() {
        assertThat(handler("transactional", Order.class)).isInstanceOf(TaskHandler.PerRow.class);
    }

    private void assertUnusable(String name, String problem, Class<?>... parameters) {
        String signature =
                Arrays.stream(parameters).map(Class::getSimpleName).toList().toString();
        assertThatThrownBy(() -> handler(name, parameters))
                .isInstanceOf(InvalidTaskException.class)
                .hasMessageContaining("@ScanTask(\"orders\") on bean 'handlers' method Handlers." + name + "("
                        + signature.substring(1, signature.length() - 1) + ") cannot be used: " + problem)
                .hasMessageContaining(ScanTaskMethods.FORMS);
    }

    private TaskHandler.PerRow perRow(String name, Class<?>... parameters) {
        return (TaskHandler.PerRow) handler(name, parameters);
    }

    private TaskHandler handler(String name, Class<?>... parameters) {
        try {
            Method method = Handlers.class.getDeclaredMethod(name, parameters);
            return ScanTaskMethods.handler("handlers", handlers, method);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Row row(long id) {
        Timestamp updated = Timestamp.valueOf(UPDATED);
        return new Row(
                id,
                42,
                0,
                Map.of(
                        "order_id",
                        BigDecimal.valueOf(id),
                        "user_id",
                        42,
                        "status",
                        (short) 0,
                        "updated_at",
                        updated,
                        "created_at",
                        updated));
    }

    private static Order order(long id) {
        return new Order(id, 42L, 0, UPDATED, Timestamp.valueOf(UPDATED).toInstant(), null);
    }

    record Order(long orderId, Long userId, int status, LocalDateTime updatedAt, Instant createdAt, String lastError) {}

    public static class OrderBean {
        private long orderId;
        private long userId;
        private LocalDateTime updatedAt;
        private String note = "untouched";

        public long getOrderId() {
            return orderId;
        }

        public void setOrderId(long orderId) {
            this.orderId = orderId;
        }

        public long getUserId() {
            return userId;
        }

        public void setUserId(long userId) {
            this.userId = userId;
        }

        public LocalDateTime getUpdatedAt() {
            return updatedAt;
        }

        public void setUpdatedAt(LocalDateTime updatedAt) {
            this.updatedAt = updatedAt;
        }

        public String getNote() {
            return note;
        }

        public void setNote(String note) {
            this.note = note;
        }
    }

    public static class NoSetters {
        public long getOrderId() {
            return 0;
        }
    }

    @SuppressWarnings({"unused", "rawtypes"})
    static class Handlers {
        final List<Object> received = new ArrayList<>();

        @ScanTask("orders")
        public void record(Order order) {
            received.add(order);
        }

        @ScanTask("orders")
        public Outcome withContext(Order order, ScanContext context) {
            return Outcome.retryLater("shard " + context.shard() + " epoch " + context.epoch());
        }

        @ScanTask("orders")
        public void bean(OrderBean order) {
            received.add(order);
        }

        @ScanTask("orders")
        public void map(Map<String, Object> columns) {
            received.add(columns);
        }

        @ScanTask("orders")
        public void row(Row row) {
            received.add(row);
        }

        @ScanTask("orders")
        public Outcome batch(List<Order> orders) {
            received.add(orders);
            return Outcome.skip();
        }

        @ScanTask("orders")
        public void batchWithContext(List<Order> orders, ScanContext context) {
            received.add(orders);
            received.add(context);
        }

        @ScanTask("orders")
        public void fails(Order order) throws IOException {
            throw new IOException("downstream refused order " + order.orderId());
        }

        @ScanTask("orders")
        public void noParameters() {}

        @ScanTask("orders")
        public void threeParameters(Order order, ScanContext context, String extra) {}

        @ScanTask("orders")
        public void secondNotContext(Order order, String extra) {}

        @ScanTask("orders")
        public void rawList(List orders) {}

        @ScanTask("orders")
        public void wildcardList(List<?> orders) {}

        @ScanTask("orders")
        public String returnsString(Order order) {
            return "done";
        }

        @ScanTask("orders")
        public static void staticHandler(Order order) {}

        @ScanTask("orders")
        private void privateHandler(Order order) {}

        @ScanTask("orders")
        public void stringRow(String row) {}

        @ScanTask("orders")
        public void noSetters(NoSetters row) {}

        @ScanTask(value = "orders", transactional = true)
        public void transactional(Order order) {}
    }
}
