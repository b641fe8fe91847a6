package io.shardscan.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A sharded task on the dashboard, in a real headless Chromium against one node on H2: its card lists the
 * tables that hold rows (here dead ones), the most first, and not the empty ones; so does the failure group
 * of those rows on the failed rows screen.
 */
class DashboardShardedBrowserTests {

    @Test
    void theTaskCardAndTheFailureGroupListTheTablesThatHoldRows() throws Exception {
        String database = "dashboard_sharded";
        DataSource dataSource = TestServers.h2(database);
        new OrderTable(dataSource).recreate(8, false).coordinationTables();
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        for (int i = 0; i < 3; i++) {
            jdbc.execute("DROP TABLE IF EXISTS tb_ds_" + i);
            jdbc.execute("CREATE TABLE tb_ds_" + i + " (order_id BIGINT PRIMARY KEY, user_id BIGINT NOT NULL,"
                    + " status SMALLINT NOT NULL DEFAULT 0, retry_count INT NOT NULL DEFAULT 0,"
                    + " updated_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, last_error VARCHAR(512))");
        }
        // dead rows stay: 5 in tb_ds_1, 2 in tb_ds_2, none in tb_ds_0
        for (long id = 1; id <= 5; id++) {
            jdbc.update("INSERT INTO tb_ds_1 (order_id, user_id, status) VALUES (?, ?, 2)", id, id);
        }
        for (long id = 1; id <= 2; id++) {
            jdbc.update("INSERT INTO tb_ds_2 (order_id, user_id, status) VALUES (?, ?, 2)", id, id);
        }
        String task = "scan.tasks." + DashboardTestApp.TASK + ".";
        List<String> properties = List.of(
                "server.port=0",
                "spring.datasource.url=" + TestServers.h2Endpoint(database).url(),
                "scan.node-id=node-t",
                "scan.lease-ttl=2s",
                "scan.renew-interval=500ms",
                "scan.jdbc.initialize-schema=never",
                "scan.backlog-refresh=500ms",
                "scan.dashboard.enabled=true",
                task + "tables=tb_ds_{0..2}",
                task + "id-column=order_id",
                task + "shard-key-column=user_id",
                task + "shards=2",
                task + "index-check=off");
        ChromeDriver browser = HeadlessChromium.start(Files.createTempDirectory("scan-dashboard-chromium"), 1280, 800);
        try (ConfigurableApplicationContext node = new SpringApplicationBuilder(DashboardTestApp.class)
                .properties(properties.toArray(String[]::new))
                .run()) {
            int port = node.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
            WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(45), Duration.ofMillis(200));
            wait.ignoring(StaleElementReferenceException.class);
            browser.get("http://localhost:" + port + "/scan/");
            By rows = By.cssSelector("article[data-task='orders'] [data-tables='orders'] tbody tr");
            wait.until(d -> d.findElements(rows).size() == 2);
            assertThat(browser.findElements(rows).stream().map(WebElement::getText))
                    .containsExactly("tb_ds_1 0 5", "tb_ds_2 0 2");
            assertThat(browser.findElement(By.cssSelector("article[data-task='orders'] header"))
                            .getText())
                    .contains("6 shards");
            HeadlessChromium.screenshot(browser, "sharded");

            // the dead rows' one group (no error text) says which tables hold them, the most first
            browser.get("http://localhost:" + port + "/scan/#failures");
            By tables = By.cssSelector("#failure-groups tbody tr [data-tables] [data-table]");
            wait.until(d -> d.findElements(tables).size() == 2);
            assertThat(browser.findElements(tables).stream().map(WebElement::getText))
                    .containsExactly("tb_ds_1 5", "tb_ds_2 2");
            HeadlessChromium.screenshot(browser, "sharded-failures");
        } finally {
            browser.quit();
        }
    }
}
