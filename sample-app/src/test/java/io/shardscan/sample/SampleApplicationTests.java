package io.shardscan.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.ScanEngine;
import io.shardscan.core.spi.RangeSnapshot;
import io.shardscan.testsupport.TestTime;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The demo as the README's first command runs it: embedded H2, JDBC coordination, every order sent
 * once, every unpaid order closed once its delay has passed, every user notified once by a range
 * run that ends DONE.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {
            "sample.seed-orders=500",
            "sample.seed-users=3000",
            "spring.datasource.url=jdbc:h2:mem:sample-test;DB_CLOSE_DELAY=-1",
            "scan.tasks.order-close.delay=3s"
        })
class SampleApplicationTests {

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    ScanEngine engine;

    @Autowired
    ProgressLog progress;

    @Test
    void sendsOneSmsPerSeededOrder() {
        await().until(() ->
                jdbc.queryForObject("SELECT COUNT(*) FROM tb_order WHERE status = 1", Integer.class) == 500);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM sms_outbox", Integer.class))
                .isEqualTo(500);
        assertThat(jdbc.queryForObject("SELECT COUNT(DISTINCT order_id) FROM sms_outbox", Integer.class))
                .isEqualTo(500);
        assertThat(jdbc.queryForObject("SELECT COUNT(DISTINCT user_id) FROM tb_order", Integer.class))
                .as("several orders share a user")
                .isLessThan(500);
    }

    @Test
    void pushesEveryOrderToItsStoreOverHttp() {
        await().until(() ->
                jdbc.queryForObject("SELECT COUNT(*) FROM tb_order_sync WHERE status = 1", Integer.class) == 500);
        assertThat(jdbc.queryForObject("SELECT COUNT(DISTINCT order_id) FROM store_received", Integer.class))
                .isEqualTo(500);
        assertThat(jdbc.queryForObject(
                        "SELECT COUNT(*) FROM store_received r JOIN tb_order_sync s ON s.order_id = r.order_id"
                                + " WHERE r.store_id <> s.store_id",
                        Integer.class))
                .as("orders that reached another store than their row names")
                .isZero();
    }

    @Test
    void closesEachUnpaidOrderOnceAndNotBeforeItsDelay() {
        await().until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM closed_order", Integer.class) == 150);
        assertThat(jdbc.queryForObject("SELECT COUNT(DISTINCT order_id) FROM closed_order", Integer.class))
                .isEqualTo(150);
        assertThat(jdbc.queryForObject(
                        "SELECT COUNT(*) FROM closed_order c JOIN tb_payment_due p ON p.order_id = c.order_id"
                                + " WHERE c.closed_at < DATEADD(MILLISECOND, 3000, p.created_at)",
                        Integer.class))
                .as("orders closed before created_at + delay")
                .isZero();
    }

    @Test
    void notifiesEveryUserOnceInARunThatEndsDone() {
        await().atMost(TestTime.scaled(Duration.ofSeconds(60)))
                .until(() -> engine.rangeTask("notify-users").snapshot().run().done());
        RangeSnapshot done = engine.rangeTask("notify-users").snapshot();
        assertThat(done.run().id()).isOne();
        assertThat(done.progress().processed()).isEqualTo(3000);
        assertThat(done.progress().failed()).isZero();
        assertThat(jdbc.queryForObject("SELECT MAX(user_id) FROM tb_user", Long.class))
                .as("ids with gaps: every tenth is missing")
                .isEqualTo(3333);
        // one node, no crash: nothing runs twice, so exactly one notification per user
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM user_outbox", Integer.class))
                .isEqualTo(3000);
        assertThat(jdbc.queryForObject(
                        "SELECT COUNT(*) FROM tb_user u WHERE NOT EXISTS"
                                + " (SELECT 1 FROM user_outbox o WHERE o.user_id = u.user_id)",
                        Integer.class))
                .as("users without a notification")
                .isZero();
        assertThat(jdbc.queryForObject(
                        "SELECT COUNT(*) FROM user_outbox WHERE epoch < 1 OR node_id <> ?",
                        Integer.class,
                        engine.nodeId()))
                .as("notifications without this node and a range epoch")
                .isZero();
        assertThat(progress.notifying())
                .as("the progress log's notify-users line")
                .isEqualTo("users=3000, user_outbox=3000, run 1 DONE");
    }
}
