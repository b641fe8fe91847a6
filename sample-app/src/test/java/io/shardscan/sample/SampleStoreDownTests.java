package io.shardscan.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.ScanEngine;
import io.shardscan.core.spi.EndpointBan;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;

/** order-sync with store 3 refusing connections: the other stores get every order, store 3 is banned, nothing dies. */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {
            "sample.seed-orders=400",
            "sample.stores-down=3",
            "spring.datasource.url=jdbc:h2:mem:sample-store-down;DB_CLOSE_DELAY=-1"
        })
class SampleStoreDownTests {

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    ScanEngine engine;

    @Test
    void aStoreThatRefusesConnectionsIsBannedAndTheOthersGetEveryOrder() {
        await().until(() ->
                jdbc.queryForObject("SELECT COUNT(*) FROM tb_order_sync WHERE status = 1", Integer.class) == 350);
        await().until(() -> engine.task("order-sync").bannedEndpoints().stream()
                .map(EndpointBan::endpoint)
                .toList()
                .contains("3"));
        assertThat(jdbc.queryForObject(
                        "SELECT COUNT(*) FROM tb_order_sync WHERE store_id = 3 AND status = 0", Integer.class))
                .isEqualTo(50);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM tb_order_sync WHERE status = 2", Integer.class))
                .isZero();
        assertThat(jdbc.queryForObject("SELECT COUNT(DISTINCT order_id) FROM store_received", Integer.class))
                .isEqualTo(350);
    }
}
