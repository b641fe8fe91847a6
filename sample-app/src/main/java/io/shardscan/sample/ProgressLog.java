package io.shardscan.sample;

import io.shardscan.core.ScanEngine;
import io.shardscan.core.spi.RangeSnapshot;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/** Logs how far the demo got, every few seconds, so a run can be watched from its console. */
@Component
public class ProgressLog {

    private static final Logger log = LoggerFactory.getLogger(ProgressLog.class);

    /** The select list item of notify-users' counts. */
    private static final String USERS =
            "CONCAT('users=', (SELECT COUNT(*) FROM tb_user), ', user_outbox=', (SELECT COUNT(*) FROM user_outbox))";

    private final JdbcTemplate jdbc;
    private final ScanEngine engine;
    private String last = "";

    public ProgressLog(JdbcTemplate jdbc, ScanEngine engine) {
        this.jdbc = jdbc;
        this.engine = engine;
    }

    @Scheduled(
            initialDelayString = "${sample.progress-interval:5s}",
            fixedDelayString = "${sample.progress-interval:5s}")
    public void report() {
        // one statement for the four lines: four were 0.8 of the 6.3 statements per second the idle
        // demo cost its database; CONCAT, not ||: MySQL and MariaDB read || as OR
        String[] lines = jdbc.queryForObject(
                "SELECT (SELECT CONCAT('orders pending=', SUM(CASE WHEN status = 0 THEN 1 ELSE 0 END),"
                        + " ' done=', SUM(CASE WHEN status = 1 THEN 1 ELSE 0 END),"
                        + " ' dead=', SUM(CASE WHEN status = 2 THEN 1 ELSE 0 END),"
                        + " ', sms_outbox=', (SELECT COUNT(*) FROM sms_outbox)) FROM tb_order),"
                        + " (SELECT CONCAT('unpaid orders pending=', SUM(CASE WHEN status = 0 THEN 1 ELSE 0 END),"
                        + " ' closed=', SUM(CASE WHEN status = 1 THEN 1 ELSE 0 END),"
                        + " ' dead=', SUM(CASE WHEN status = 2 THEN 1 ELSE 0 END),"
                        + " ', closed_order=', (SELECT COUNT(*) FROM closed_order)) FROM tb_payment_due),"
                        + " (SELECT CONCAT('orders to push pending=', SUM(CASE WHEN status = 0 THEN 1 ELSE 0 END),"
                        + " ' synced=', SUM(CASE WHEN status = 1 THEN 1 ELSE 0 END),"
                        + " ' dead=', SUM(CASE WHEN status = 2 THEN 1 ELSE 0 END),"
                        + " ', store_received=', (SELECT COUNT(*) FROM store_received)) FROM tb_order_sync), "
                        + USERS,
                (rs, n) -> new String[] {rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)});
        String line = lines[0];
        String closing = lines[1];
        String syncing = lines[2];
        String notifying = notifying(lines[3]);
        if (!(notifying + syncing + closing + line).equals(last)) {
            // every line whenever one changed, order-sms last, so the log ends with it
            log.info("notify-users progress: {}", notifying);
            log.info("order-sync progress: {}", syncing);
            log.info("order-close progress: {}", closing);
            log.info("order-sms progress: {}", line);
            last = notifying + syncing + closing + line;
        }
    }

    /** The users, their notifications, and the run as the engine last read it (RUNNING with its share, or DONE). */
    String notifying() {
        return notifying(jdbc.queryForObject("SELECT " + USERS, String.class));
    }

    private String notifying(String counts) {
        RangeSnapshot run = engine.rangeTask("notify-users").snapshot();
        if (run == null) {
            return counts + ", not started";
        }
        return counts + ", run " + run.run().id() + " "
                + (run.run().done() ? "DONE" : String.format(Locale.ROOT, "RUNNING %.1f%% of ids", run.percent()));
    }
}
