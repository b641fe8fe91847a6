package io.shardscan.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;

/** The demo as the README's first command runs it: embedded H2, JDBC coordination, every order sent once. */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {"sample.seed-orders=500", "spring.datasource.url=jdbc:h2:mem:sample-test;DB_CLOSE_DELAY=-1"})
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
}
