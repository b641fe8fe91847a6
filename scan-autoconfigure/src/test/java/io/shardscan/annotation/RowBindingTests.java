package io.shardscan.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardscan.core.task.Row;
import io.shardscan.core.task.RowColumns;
import io.shardscan.core.task.ScanContext;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.sql.Date;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanInstantiationException;
import org.springframework.core.ResolvableType;

/**
 * Binding by column position: the values every supported member type gets, and that a row's
 * columns no member names are never decoded.
 */
class RowBindingTests {

    private static final LocalDateTime AT = LocalDateTime.of(2026, 3, 1, 8, 15, 30);

    @Test
    void bindsEveryMemberTypeFromAPageRowByPosition() {
        Row row = pageRow(every());

        assertThat(bind(AllTypes.class, row)).isEqualTo(expected());
        AllTypesBean bean = (AllTypesBean) bind(AllTypesBean.class, row);
        assertThat(new AllTypes(
                        bean.id,
                        bean.userId,
                        bean.retryCount,
                        bean.paid,
                        bean.weight,
                        bean.amount,
                        bean.phone,
                        bean.kind,
                        bean.updatedAt,
                        bean.createdAt,
                        bean.dueOn,
                        bean.note,
                        bean.flag,
                        bean.missing))
                .isEqualTo(expected());
    }

    @Test
    void aRowBuiltFromAMapBindsAsAPageRowDoes() {
        assertThat(bind(AllTypes.class, new Row(1, 42, 0, every()))).isEqualTo(expected());
    }

    @Test
    void nullColumnsGiveNullOrThePrimitiveDefaultAndBeanPropertiesKeepTheirValue() {
        Map<String, Object> columns = every();
        columns.replaceAll((name, value) -> name.equals("id") ? value : null);

        assertThat(bind(AllTypes.class, pageRow(columns)))
                .isEqualTo(new AllTypes(1L, null, 0, false, 0.0, null, null, null, null, null, null, null, 0, null));
        AllTypesBean bean = (AllTypesBean) bind(AllTypesBean.class, pageRow(columns));
        assertThat(bean.flag)
                .as("a primitive property whose column is NULL keeps its value")
                .isEqualTo(7);
        assertThat(bean.note).isNull();
    }

    @Test
    void readsOnlyTheColumnsTheTypeNames() {
        AtomicInteger phoneReads = new AtomicInteger();
        Row row = new Row.Layout(List.of("id", "user_id", "payload", "phone", "updated_at"))
                .row(5, 42, 0, new Object[] {
                    5L,
                    42L,
                    (Row.Deferred) () -> {
                        throw new AssertionError("decoded a column no member names");
                    },
                    (Row.Deferred) () -> "+1555" + phoneReads.incrementAndGet(),
                    (Row.Deferred) () -> {
                        throw new AssertionError("decoded a column no member names");
                    }
                });

        assertThat(bind(Narrow.class, row)).isEqualTo(new Narrow(5L, "+15551"));
        assertThat(phoneReads).hasValue(1);
        assertThat(((NarrowBean) bind(NarrowBean.class, row)).phone).isEqualTo("+15552");
    }

    @Test
    void resolvesPositionsAgainWhenThePageHasOtherColumns() {
        RowBinder binder = RowBinder.forType(ResolvableType.forClass(Narrow.class));
        Row first = new Row.Layout(List.of("id", "phone")).row(1, 1, 0, new Object[] {1L, "a"});
        Row reordered = new Row.Layout(List.of("phone", "payload", "id")).row(2, 2, 0, new Object[] {"b", "x", 2L});
        Row samePage = new Row.Layout(List.of("phone", "payload", "id")).row(3, 3, 0, new Object[] {"c", "y", 3L});
        Row without = new Row.Layout(List.of("id")).row(4, 4, 0, new Object[] {4L});

        assertThat(List.of(first, reordered, samePage, without, first).stream()
                        .map(binder::bind)
                        .toList())
                .containsExactly(
                        new Narrow(1L, "a"),
                        new Narrow(2L, "b"),
                        new Narrow(3L, "c"),
                        new Narrow(4L, null),
                        new Narrow(1L, "a"));
    }

    @Test
    void aMemberBindsToTheFirstColumnOfItsKey() {
        Row row = new Row.Layout(List.of("id", "phone", "PHONE_")).row(1, 1, 0, new Object[] {1L, "first", "second"});

        assertThat(bind(Narrow.class, row)).isEqualTo(new Narrow(1L, "first"));
    }

    /** A timestamptz column read as a Timestamp binds to the zoned types too, as the same instant. */
    @Test
    void aTimestampBindsToEveryDateTimeTypeAsTheSameInstant() {
        Timestamp at = Timestamp.valueOf(AT);
        Row row = new Row.Layout(List.of("id", "placed_at", "paid_at", "seen_at"))
                .row(1, 1, 0, new Object[] {1L, at, at, at});

        Zoned zoned = (Zoned) bind(Zoned.class, row);

        assertThat(zoned.placedAt().toInstant()).isEqualTo(at.toInstant());
        assertThat(zoned.paidAt().toInstant()).isEqualTo(at.toInstant());
        assertThat(zoned.seenAt()).isEqualTo(at.toInstant());
        assertThat(zoned.placedAt().toLocalDateTime())
                .as("the same wall-clock a LocalDateTime component reads")
                .isEqualTo(AT);
    }

    @Test
    void aComponentOfATypeNoTimestampConvertsToSaysWhichTypesDo() {
        Row row = new Row.Layout(List.of("id", "phone")).row(1, 1, 0, new Object[] {1L, Timestamp.valueOf(AT)});

        assertThatThrownBy(() -> bind(TimeAsNumber.class, row))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("for 'phone'")
                .hasMessageContaining("Instant, OffsetDateTime, ZonedDateTime, LocalDateTime, LocalDate");
    }

    @Test
    void namesTheMemberAndTypesOfAValueItCannotConvert() {
        Row row = new Row.Layout(List.of("id", "phone")).row(1, 1, 0, new Object[] {"not a number", "x"});

        assertThatThrownBy(() -> bind(Narrow.class, row))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("cannot convert column value of type java.lang.String to")
                .hasMessageContaining("for 'id'");
    }

    @Test
    void aRecordWhoseConstructorRefusesTheValuesFailsTheRowNamingTheConstructorAndItsReason() {
        Row row = new Row.Layout(List.of("id", "phone")).row(1, 1, 0, new Object[] {1L, " "});

        assertThatThrownBy(() -> bind(Checked.class, row))
                .isInstanceOf(BeanInstantiationException.class)
                .hasMessageContaining(Checked.class.getName())
                .hasMessageContaining("Constructor threw exception")
                .rootCause()
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("phone is blank");
    }

    @Test
    void aRecordOrBeanHandlerReadsTheColumnsItNamesAndAnyOtherEveryColumn() throws Exception {
        assertThat(ScanTaskMethods.rowColumns(method("narrow", Narrow.class), null))
                .isEqualTo(RowColumns.matching(List.of("id", "phone")));
        assertThat(ScanTaskMethods.rowColumns(method("beans", List.class, ScanContext.class), null))
                .isEqualTo(RowColumns.matching(List.of("id", "phone")));
        assertThat(ScanTaskMethods.rowColumns(method("row", Row.class), null)).isEqualTo(RowColumns.ALL);
        assertThat(ScanTaskMethods.rowColumns(method("map", Map.class), null)).isEqualTo(RowColumns.ALL);
    }

    private static Object bind(Class<?> type, Row row) {
        return RowBinder.forType(ResolvableType.forClass(type)).bind(row);
    }

    private static Method method(String name, Class<?>... parameters) throws NoSuchMethodException {
        return Handlers.class.getDeclaredMethod(name, parameters);
    }

    /** A row of a fetched page: every value in a layout, timestamps deferred as the JDBC store reads them. */
    private static Row pageRow(Map<String, Object> columns) {
        List<Object> values = new ArrayList<>();
        columns.values().forEach(value -> values.add(value instanceof Timestamp t ? (Row.Deferred) () -> t : value));
        return new Row.Layout(List.copyOf(columns.keySet())).row(1, 42, 0, values.toArray());
    }

    /** One column per supported kind of value, as JDBC drivers return them. */
    private static Map<String, Object> every() {
        Map<String, Object> columns = new LinkedHashMap<>();
        columns.put("id", 1L);
        columns.put("user_id", 42);
        columns.put("retry_count", (short) 3);
        columns.put("paid", true);
        columns.put("weight", new BigDecimal("2.5"));
        columns.put("amount", 1999);
        columns.put("phone", "+1555");
        columns.put("kind", "EXPRESS");
        columns.put("updated_at", Timestamp.valueOf(AT));
        columns.put("created_at", Timestamp.valueOf(AT));
        columns.put("due_on", Date.valueOf(AT.toLocalDate()));
        columns.put("note", null);
        columns.put("flag", 5L);
        columns.put("status", (short) 0);
        return columns;
    }

    private static AllTypes expected() {
        return new AllTypes(
                1L,
                42L,
                3,
                true,
                2.5,
                new BigDecimal("1999"),
                "+1555",
                Kind.EXPRESS,
                AT,
                Timestamp.valueOf(AT).toInstant(),
                AT.toLocalDate(),
                null,
                5,
                null);
    }

    enum Kind {
        STANDARD,
        EXPRESS
    }

    record AllTypes(
            long id,
            Long userId,
            int retryCount,
            boolean paid,
            double weight,
            BigDecimal amount,
            String phone,
            Kind kind,
            LocalDateTime updatedAt,
            Instant createdAt,
            LocalDate dueOn,
            String note,
            int flag,
            String missing) {}

    record Narrow(long id, String phone) {}

    record Zoned(long id, OffsetDateTime placedAt, ZonedDateTime paidAt, Instant seenAt) {}

    record TimeAsNumber(long id, java.time.Duration phone) {}

    record Checked(long id, String phone) {
        Checked {
            if (phone.isBlank()) {
                throw new IllegalArgumentException("phone is blank");
            }
        }
    }

    public static class NarrowBean {
        long id;
        String phone;

        public void setId(long id) {
            this.id = id;
        }

        public void setPhone(String phone) {
            this.phone = phone;
        }
    }

    public static class AllTypesBean {
        long id;
        Long userId;
        int retryCount;
        boolean paid;
        double weight;
        BigDecimal amount;
        String phone;
        Kind kind;
        LocalDateTime updatedAt;
        Instant createdAt;
        LocalDate dueOn;
        String note = "untouched";
        int flag = 7;
        String missing;

        public void setId(long id) {
            this.id = id;
        }

        public void setUserId(Long userId) {
            this.userId = userId;
        }

        public void setRetryCount(int retryCount) {
            this.retryCount = retryCount;
        }

        public void setPaid(boolean paid) {
            this.paid = paid;
        }

        public void setWeight(double weight) {
            this.weight = weight;
        }

        public void setAmount(BigDecimal amount) {
            this.amount = amount;
        }

        public void setPhone(String phone) {
            this.phone = phone;
        }

        public void setKind(Kind kind) {
            this.kind = kind;
        }

        public void setUpdatedAt(LocalDateTime updatedAt) {
            this.updatedAt = updatedAt;
        }

        public void setCreatedAt(Instant createdAt) {
            this.createdAt = createdAt;
        }

        public void setDueOn(LocalDate dueOn) {
            this.dueOn = dueOn;
        }

        public void setNote(String note) {
            this.note = note;
        }

        public void setFlag(int flag) {
            this.flag = flag;
        }

        public void setMissing(String missing) {
            this.missing = missing;
        }
    }

    @SuppressWarnings("unused")
    static class Handlers {
        @ScanTask("orders")
        public void narrow(Narrow row) {}

        @ScanTask("orders")
        public void beans(List<NarrowBean> rows, ScanContext context) {}

        @ScanTask("orders")
        public void row(Row row) {}

        @ScanTask("orders")
        public void map(Map<String, Object> row) {}
    }
}
