package io.shardscan.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The demo as the README's first command runs it: embedded H2, JDBC coordination, every order sent
 * once, every unpaid order closed once its delay has passed.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {
            "sample.seed-orders=500",
            "spring.datasource.url=jdbc:h2:mem:sample-test;DB_CLOSE_DELAY=-1",
            "scan.tasks.order-close.delay=3s"
        })
class SampleApplicationTests {

    @Autowired
    JdbcTemplate jdbc;

    @Test
    void sendsOneSmsPerSeededOrder() {
        await().atMost(Duration.ofSeconds(30))
                .until(() ->
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
        await().atMost(Duration.ofSeconds(30))
                .until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM tb_order_sync WHERE status = 1", Integer.class)
                        == 500);
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
        await().atMost(Duration.ofSeconds(30))
                .until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM closed_order", Integer.class) == 150);
        assertThat(jdbc.queryForObject("SELECT COUNT(DISTINCT order_id) FROM closed_order", Integer.class))
                .isEqualTo(150);
        assertThat(jdbc.queryForObject(
                        "SELECT COUNT(*) FROM closed_order c JOIN tb_payment_due p ON p.order_id = c.order_id"
                                + " WHERE c.closed_at < DATEADD(MILLISECOND, 3000, p.created_at)",
                        Integer.class))
                .as("orders closed before created_at + delay")
                .isZero();
    }
}
