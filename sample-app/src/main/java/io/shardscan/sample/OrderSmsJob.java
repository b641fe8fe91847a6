package io.shardscan.sample;

import io.shardscan.annotation.ScanTask;
import io.shardscan.core.task.ScanContext;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/** Task {@code order-sms}: one SMS per order, recorded in sms_outbox with the node and the lease epoch. */
@Component
public class OrderSmsJob {

    private final JdbcTemplate jdbc;
    private final SampleProperties properties;

    public OrderSmsJob(JdbcTemplate jdbc, SampleProperties properties) {
        this.jdbc = jdbc;
        this.properties = properties;
    }

    /**
     * An order of tb_order, mapped by column name.
     *
     * @param orderId the order
     * @param userId its user; the shard key, so one user's orders go out in order
     * @param phone where the SMS goes
     * @param productName what was ordered
     */
    public record Order(long orderId, long userId, String phone, String productName) {}

    @ScanTask("order-sms")
    public void send(Order order, ScanContext context) throws InterruptedException {
        if (!properties.sendLatency().isZero()) {
            TimeUnit.NANOSECONDS.sleep(properties.sendLatency().toNanos());
        }
        if (ThreadLocalRandom.current().nextDouble() < properties.failureRate()) {
            throw new IllegalStateException("SMS gateway refused order " + order.orderId() + " (simulated)");
        }
        jdbc.update(
                "INSERT INTO sms_outbox (order_id, node_id, epoch, sent_at) VALUES (?, ?, ?, ?)",
                order.orderId(),
                context.node(),
                context.epoch(),
                Timestamp.from(Instant.now()));
    }
}
