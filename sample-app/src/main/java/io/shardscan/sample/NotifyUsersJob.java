package io.shardscan.sample;

import io.shardscan.annotation.ScanTask;
import io.shardscan.core.task.ScanContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Task {@code notify-users} ({@code mode: range}, {@code run: once}): "send every user a coupon"
 * over tb_user, a table without a status column. Each notification is recorded in user_outbox
 * with the node and the epoch of the range it came from; the run ends DONE once every id up to the
 * highest one at its start is covered.
 */
@Component
public class NotifyUsersJob {

    private final JdbcTemplate jdbc;

    public NotifyUsersJob(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * A user of tb_user, mapped by column name.
     *
     * @param userId the user; the range id
     * @param email where the coupon goes
     */
    public record User(long userId, String email) {}

    @ScanTask("notify-users")
    public void send(User user, ScanContext context) {
        jdbc.update(
                "INSERT INTO user_outbox (user_id, email, node_id, epoch, sent_at) VALUES (?, ?, ?, ?, LOCALTIMESTAMP(3))",
                user.userId(),
                user.email(),
                context.node(),
                context.epoch());
    }
}
