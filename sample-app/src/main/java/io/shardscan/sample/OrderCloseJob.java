package io.shardscan.sample;

import io.shardscan.annotation.ScanTask;
import io.shardscan.core.task.ScanContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Task {@code order-close}: an order still unpaid a while after it was created is closed. Its rows
 * are the unpaid orders' payment deadlines in tb_payment_due (a payment would mark a row done
 * before it is due); the task's {@code due-at-column: created_at} and {@code delay} keep each row
 * back until then, and the closed order is recorded in closed_order on the database's clock.
 */
@Component
public class OrderCloseJob {

    private final JdbcTemplate jdbc;

    public OrderCloseJob(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * An unpaid order of tb_payment_due, mapped by column name.
     *
     * @param orderId the order
     * @param userId its user; the shard key
     */
    public record PaymentDue(long orderId, long userId) {}

    @ScanTask("order-close")
    public void close(PaymentDue due, ScanContext context) {
        jdbc.update(
                "INSERT INTO closed_order (order_id, node_id, epoch, closed_at) VALUES (?, ?, ?, LOCALTIMESTAMP(3))",
                due.orderId(),
                context.node(),
                context.epoch());
    }
}
