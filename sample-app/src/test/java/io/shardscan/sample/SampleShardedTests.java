package io.shardscan.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.ScanEngine;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.ActiveProfiles;

/**
 * The demo's sharded variant as {@code -Dspring-boot.run.profiles=sharded} runs it: 16 order tables in two
 * embedded databases, one task; every order of every table is sent once, recorded in its own database.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {
            "sample.seed-orders=50",
            "sample.seed-users=100",
            "sample.sharded.orders-per-table=40",
            "spring.datasource.url=jdbc:h2:mem:sample-sharded-a;DB_CLOSE_DELAY=-1",
            "sample.sharded.second-url=jdbc:h2:mem:sample-sharded-b;DB_CLOSE_DELAY=-1"
        })
@ActiveProfiles("sharded")
class SampleShardedTests {

    @Autowired
    DataSource dataSource;

    @Autowired
    @Qualifier("shardsB")
    DataSource shardsB;

    @Autowired
    ScanEngine engine;

    private static int sum(JdbcTemplate jdbc, int from, int to, String where) {
        int sum = 0;
        for (int i = from; i < to; i++) {
            sum += jdbc.queryForObject(
                    String.format("SELECT COUNT(*) FROM tb_order_%02d WHERE %s", i, where), Integer.class);
        }
        return sum;
    }

    @Test
    void sendsOneSmsPerOrderOfEveryTableIntoItsOwnDatabase() {
        JdbcTemplate a = new JdbcTemplate(dataSource);
        JdbcTemplate b = new JdbcTemplate(shardsB);
        assertThat(engine.task("order-sms-sharded").definition().shards()).isEqualTo(64);
        await().until(() -> sum(a, 0, 8, "status = 1") + sum(b, 8, 16, "status = 1") == 16 * 40);
        assertThat(b.queryForObject("SELECT COUNT(DISTINCT order_id) FROM sms_outbox", Integer.class))
                .isEqualTo(8 * 40);
        assertThat(b.queryForObject("SELECT COUNT(*) FROM sms_outbox", Integer.class))
                .isEqualTo(8 * 40);
        // the first database holds the other 8 tables' SMS, next to the main demo's 50
        assertThat(a.queryForObject("SELECT COUNT(*) FROM sms_outbox WHERE order_id >= 1000000", Integer.class))
                .isEqualTo(7 * 40);
        // Shardscan's tables in the second database, with the fences of its shards (tables 8-15: shards 32-63)
        assertThat(b.queryForObject(
                        "SELECT COUNT(*) FROM scan_fence WHERE task = 'order-sms-sharded' AND shard >= 32",
                        Integer.class))
                .isEqualTo(32);
    }
}
