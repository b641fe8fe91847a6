package io.shardscan.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A scheduled task on the dashboard, in a real headless Chromium against one node on H2: the task's card
 * shows its schedule, its next firing and that it has not fired yet, and its state done (run 0: nothing
 * runs before the first firing).
 */
class DashboardScheduleBrowserTests {

    @Test
    void theTaskCardShowsTheScheduleAndItsNextFiring() throws Exception {
        String database = "dashboard_schedule";
        new OrderTable(TestServers.h2(database))
                .recreate(8, true)
                .coordinationTables()
                .insert(20, 5, Instant.now());
        List<String> properties = new ArrayList<>(List.of(
                "server.port=0",
                "spring.datasource.url=" + TestServers.h2Endpoint(database).url(),
                "scan.node-id=node-s",
                "scan.lease-ttl=2s",
                "scan.renew-interval=500ms",
                "scan.jdbc.initialize-schema=never",
                "scan.dashboard.enabled=true",
                "scan.tasks.orders.run=until-empty",
                "scan.tasks.orders.schedule.cron=0 0 2 * * *",
                "scan.tasks.orders.schedule.zone=UTC"));
        properties.addAll(List.of(DashboardTestApp.taskProperties(8)));
        ChromeDriver browser = HeadlessChromium.start(Files.createTempDirectory("scan-dashboard-chromium"), 1280, 800);
        try (ConfigurableApplicationContext node = new SpringApplicationBuilder(DashboardTestApp.class)
                .properties(properties.toArray(String[]::new))
                .run()) {
            int port = node.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
            WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(45), Duration.ofMillis(200));
            wait.ignoring(StaleElementReferenceException.class);
            browser.get("http://localhost:" + port + "/scan/");
            By schedule = By.cssSelector("article[data-task='orders'] [data-schedule='orders']");
            wait.until(d -> !d.findElements(schedule).isEmpty());
            String line = browser.findElement(schedule).getText();
            assertThat(line)
                    .startsWith("schedule cron 0 0 2 * * * UTC · next firing ")
                    .endsWith(" · no firing yet");
            wait.until(d -> d.findElement(By.cssSelector("article[data-task='orders'] [data-state]"))
                    .getText()
                    .contains("done"));
            assertThat(browser.findElement(By.cssSelector("article[data-task='orders'] header"))
                            .getText())
                    .contains("run 0");
            HeadlessChromium.screenshot(browser, "schedule");
        } finally {
            browser.quit();
        }
    }
}
