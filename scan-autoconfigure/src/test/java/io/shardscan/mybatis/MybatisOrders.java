package io.shardscan.mybatis;

import io.shardscan.testsupport.OrderTable;
import java.time.Instant;
import java.time.LocalDateTime;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The tb_order table as a team with MyBatis result maps has it: the phone in {@code phone_no} and a
 * {@code channel} enum column; and the result types of {@code OrderMapper.xml}.
 */
final class MybatisOrders {

    static final String MAPPER = "io/shardscan/mybatis/OrderMapper.xml";

    private MybatisOrders() {}

    /** Recreates tb_order with {@code count} orders, order i of user {@code 100 + i} on channel SMS. */
    static OrderTable create(DataSource dataSource, int shards, int count) {
        OrderTable table = new OrderTable(dataSource).recreate(shards, true);
        table.insert(count, 1_000_000, Instant.parse("2026-01-01T00:00:00Z"));
        table.jdbc().execute("ALTER TABLE tb_order ALTER COLUMN phone RENAME TO phone_no");
        table.jdbc().execute("ALTER TABLE tb_order ADD COLUMN channel VARCHAR(8)");
        table.jdbc().execute("UPDATE tb_order SET user_id = 100 + order_id, channel = 'SMS'");
        return table;
    }

    public enum Channel {
        SMS,
        PUSH
    }

    /** A JavaBean result type: {@code id} and {@code phone} by the result map, the rest auto-mapped. */
    public static class Order {
        private long id;
        private long userId;
        private @Nullable String phone;
        private @Nullable Channel channel;
        private @Nullable LocalDateTime updatedAt;
        private int status;

        public long getId() {
            return id;
        }

        public void setId(long id) {
            this.id = id;
        }

        public long getUserId() {
            return userId;
        }

        public void setUserId(long userId) {
            this.userId = userId;
        }

        public @Nullable String getPhone() {
            return phone;
        }

        public void setPhone(@Nullable String phone) {
            this.phone = phone;
        }

        public @Nullable Channel getChannel() {
            return channel;
        }

        public void setChannel(@Nullable Channel channel) {
            this.channel = channel;
        }

        public @Nullable LocalDateTime getUpdatedAt() {
            return updatedAt;
        }

        public void setUpdatedAt(@Nullable LocalDateTime updatedAt) {
            this.updatedAt = updatedAt;
        }

        public int getStatus() {
            return status;
        }

        public void setStatus(int status) {
            this.status = status;
        }
    }

    /** A record result type, built through its canonical constructor. */
    public record OrderRecord(
            long id,
            long userId,
            @Nullable String phone,
            @Nullable Channel channel,
            @Nullable Instant updatedAt) {}

    /** A type MyBatis knows only by its alias: everything auto-mapped. */
    public static class AliasedOrder {
        private long orderId;
        private @Nullable String phoneNo;

        public long getOrderId() {
            return orderId;
        }

        public void setOrderId(long orderId) {
            this.orderId = orderId;
        }

        public @Nullable String getPhoneNo() {
            return phoneNo;
        }

        public void setPhoneNo(@Nullable String phoneNo) {
            this.phoneNo = phoneNo;
        }
    }
}
