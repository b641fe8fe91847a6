package io.shardscan.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.TaskView;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.RedisServerHandle;
import io.shardscan.testsupport.TestServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard in a real headless Chromium against a running two-node cluster (two Spring Boot
 * applications on PostgreSQL with Redis leases, started here): node {@code a} serves the page with
 * writes on. Screenshots go to {@code target/dashboard-screenshots/}. The tests run in order.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DashboardBrowserTests {

    static final Duration WAIT = Duration.ofSeconds(45);
    static final Set<Long> POISONED = Set.of(7L, 107L, 207L);

    private OrderTable table;
    private DashboardNode a;
    private DashboardNode b;
    private ChromeDriver browser;
    private WebDriverWait wait;
    private ScheduledExecutorService feeder;

    @BeforeAll
    void startClusterAndBrowser() throws Exception {
        Path profile = Files.createTempDirectory("scan-dashboard-chromium");
        browser = HeadlessChromium.start(profile, 1280, 800);
        // the page redraws every 2 s: an element found before a redraw is stale after it
        wait = new WebDriverWait(browser, WAIT, Duration.ofMillis(200));
        wait.ignoring(StaleElementReferenceException.class);
        JdbcEndpoint db = TestServers.postgresEndpoint("dashboard");
        table = new OrderTable(TestServers.postgresDatabase("dashboard"))
                .recreate(64, true)
                .coordinationTables();
        DashboardTestApp.POISONED.addAll(POISONED);
        table.insert(600, 97, Instant.now());
        RedisServerHandle redis = TestServers.redis();
        a = DashboardNode.start("node-a", db, redis, true);
        b = DashboardNode.start("node-b", db, redis, false);
        // a trickle of new orders while the tests look, so both nodes have a rate to draw
        feeder = Executors.newSingleThreadScheduledExecutor();
        AtomicLong next = new AtomicLong(100_000);
        feeder.scheduleAtFixedRate(
                () -> table.insert(next.getAndAdd(20), 20, 97, Instant.now()), 0, 250, TimeUnit.MILLISECONDS);
    }

    @AfterAll
    void stop() {
        if (feeder != null) {
            feeder.shutdownNow();
        }
        if (browser != null) {
            browser.quit();
        }
        for (DashboardNode node : new DashboardNode[] {a, b}) {
            if (node != null) {
                node.close();
            }
        }
    }

    @Test
    @Order(1)
    void overviewShowsBothNodesOfTheClusterWithTheirRates() throws Exception {
        browser.get(a.dashboardUrl());
        wait.until(d ->
                d.findElements(By.cssSelector("#nodes tr[data-node='node-a']")).size() == 1
                        && d.findElements(By.cssSelector("#nodes tr[data-node='node-b']"))
                                        .size()
                                == 1);
        wait.until(d -> table.count("order_id <= 600 AND status = 1") == 600 - POISONED.size());
        wait.until(d -> d.findElements(By.cssSelector("#nodes tr[data-node='node-b'] td.rate")).stream()
                .anyMatch(cell -> !cell.getText().equals("–") && Double.parseDouble(cell.getText()) > 0));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("[data-dead='orders']"), "3"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(
                By.cssSelector("article[data-task='orders'] [data-state]"), "running"));
        HeadlessChromium.screenshot(browser, "overview");
    }

    @Test
    @Order(2)
    void shardMapShowsSixtyFourCellsOwnedByBothNodes() throws Exception {
        browser.get(a.dashboardUrl() + "#shards");
        wait.until(d -> owners().equals(Set.of("node-a", "node-b")));
        // read in one script: the map may redraw between two reads
        List<?> titles = (List<?>) browser.executeScript("return [...document.querySelectorAll("
                + "\"[data-shards='orders'] [data-shard]\")].map(cell => cell.title);");
        assertThat(titles).hasSize(64);
        assertThat(titles.get(0).toString()).containsPattern("shard 0 · owner node-[ab] · epoch \\d+ · lease until");
        HeadlessChromium.screenshot(browser, "shards");
    }

    @Test
    @Order(3)
    void requeuesADeadRowFromTheFailedRowsScreenAndItIsDone() throws Exception {
        browser.get(a.dashboardUrl() + "#failures");
        By row7 = By.cssSelector("#failure-groups button[data-requeue-id='7']");
        wait.until(ExpectedConditions.elementToBeClickable(row7));
        assertThat(browser.findElement(By.cssSelector("#failure-groups tbody tr"))
                        .getText())
                .contains(DashboardTestApp.DECLINED)
                .contains("3");
        click(By.cssSelector("#failure-groups button[data-show-id='7']"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("row-columns"), "+15557"));
        HeadlessChromium.screenshot(browser, "failures");
        click(row7);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"), "Requeued 1 dead rows"));
        wait.until(d -> table.count("order_id = 7 AND status = 1") == 1);
        assertThat(table.count("status = 2")).isEqualTo(2);
        wait.until(d -> d.findElements(row7).isEmpty()
                && !d.findElements(By.cssSelector("#failure-groups button[data-requeue-id='107']"))
                        .isEmpty());
    }

    @Test
    @Order(4)
    void pausesAndResumesTheTaskOnEveryNode() throws Exception {
        browser.get(a.dashboardUrl() + "#overview");
        By pause = By.cssSelector("article[data-task='orders'] button[data-action='pause']");
        click(pause);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(
                By.cssSelector("article[data-task='orders'] [data-state]"), "paused"));
        wait.until(d -> b.engine().task("orders").state() == TaskView.State.PAUSED);
        HeadlessChromium.screenshot(browser, "paused");
        By resume = By.cssSelector("article[data-task='orders'] button[data-action='resume']");
        click(resume);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(
                By.cssSelector("article[data-task='orders'] [data-state]"), "running"));
        wait.until(d -> b.engine().task("orders").state() == TaskView.State.RUNNING);
    }

    @Test
    @Order(5)
    void fitsAPhoneWidthWithoutSidewaysScrolling() throws Exception {
        browser.manage().window().setSize(new Dimension(390, 844));
        browser.get(a.dashboardUrl() + "#overview");
        wait.until(d ->
                !d.findElements(By.cssSelector("article[data-task='orders']")).isEmpty());
        Object overflow = browser.executeScript(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth;");
        HeadlessChromium.screenshot(browser, "overview-phone");
        assertThat(((Number) overflow).intValue())
                .as("pixels of sideways scrolling")
                .isLessThanOrEqualTo(0);
        browser.manage().window().setSize(new Dimension(1280, 800));
    }

    @Test
    @Order(6)
    void showsFailureGroupsReadablyAtPhoneWidthAndItsBadgeInPlainWords() throws Exception {
        browser.manage().window().setSize(new Dimension(390, 844));
        browser.get(a.dashboardUrl() + "#failures");
        wait.until(ExpectedConditions.elementToBeClickable(
                By.cssSelector("#failure-groups button[data-requeue-id='107']")));
        // read in one script: the screen may redraw between two reads
        List<?> sizes =
                (List<?>) browser.executeScript("const row = document.querySelector('#failure-groups tbody tr');"
                        + " const cells = [...row.querySelectorAll('td')];"
                        + " return [cells[0].getBoundingClientRect().width, cells[2].getBoundingClientRect().width,"
                        + " cells[3].getBoundingClientRect().width, document.documentElement.scrollWidth"
                        + " - document.documentElement.clientWidth];");
        HeadlessChromium.screenshot(browser, "failures-phone");
        assertThat(((Number) sizes.get(0)).doubleValue())
                .as("width of the error text, px")
                .isGreaterThan(250);
        assertThat(((Number) sizes.get(1)).doubleValue())
                .as("width of first seen, px")
                .isGreaterThan(100);
        assertThat(((Number) sizes.get(2)).doubleValue())
                .as("width of last seen, px")
                .isGreaterThan(100);
        assertThat(((Number) sizes.get(3)).intValue())
                .as("pixels of sideways scrolling")
                .isLessThanOrEqualTo(0);
        assertThat(browser.findElement(By.id("write")).getText())
                .as("the write badge, in characters every font has")
                .matches("[ -~]+");
        browser.manage().window().setSize(new Dimension(1280, 800));
    }

    @Test
    @Order(7)
    void requeuesADeadRowWhoseIdIsAbove2To53AndNotTheRowItRoundsTo() throws Exception {
        // 2^53 + 1 is read by JavaScript as 2^53 when it arrives as a number
        for (long id : new long[] {9_007_199_254_740_992L, 9_007_199_254_740_993L}) {
            table.jdbc()
                    .update(
                            "INSERT INTO tb_order (order_id, user_id, phone, status, retry_count, updated_at,"
                                    + " last_error) VALUES (?, ?, ?, 2, 16, ?, 'bank refused')",
                            id,
                            id % 97,
                            "+1555" + id,
                            OrderTable.utc(Instant.now()));
        }
        browser.get(a.dashboardUrl() + "#failures");
        // the screen reads the groups when it opens, and the page is still on it from the test before
        browser.navigate().refresh();
        By above = By.cssSelector("#failure-groups button[data-requeue-id='9007199254740993']");
        wait.until(ExpectedConditions.elementToBeClickable(above));
        wait.until(ExpectedConditions.elementToBeClickable(
                By.cssSelector("#failure-groups button[data-requeue-id='9007199254740992']")));
        click(above);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"), "Requeued 1 dead rows"));
        // the message comes after the requeue committed
        assertThat(table.count("order_id = 9007199254740992 AND status = 2"))
                .as("the row 2^53 + 1 rounds to stays dead")
                .isEqualTo(1);
        wait.until(d -> table.count("order_id = 9007199254740993 AND status = 1") == 1);
    }

    /** Clicks the element once it is there and enabled, finding it again when a redraw replaced it. */
    @Test
    @Order(8)
    void showsTwoShardCountsSplittingTheShardsWhileANodeOfTwiceAsManyRuns() throws Exception {
        JdbcEndpoint db = TestServers.postgresEndpoint("dashboard");
        try (DashboardNode c = DashboardNode.start("node-c", db, TestServers.redis(), false, 128)) {
            browser.get(a.dashboardUrl());
            wait.until(ExpectedConditions.textToBePresentInElementLocated(
                    By.cssSelector("[data-shards-note='orders']"), "nodes of 64 and of 128 shards run at once"));
            HeadlessChromium.screenshot(browser, "shard-split");
            assertThat(c.engine().task("orders").shardCountConflict()).isNull();
        }
        wait.until(d ->
                d.findElements(By.cssSelector("[data-shards-note='orders']")).isEmpty());
    }

    private void click(By by) {
        wait.until(d -> {
            try {
                WebElement element = d.findElement(by);
                if (!element.isDisplayed() || !element.isEnabled()) {
                    return false;
                }
                element.click();
                return true;
            } catch (StaleElementReferenceException | NoSuchElementException e) {
                return false;
            }
        });
    }

    private Set<String> owners() {
        List<?> owners = (List<?>) browser.executeScript("return [...document.querySelectorAll("
                + "\"[data-shards='orders'] [data-owner]\")].map(cell => cell.dataset.owner);");
        return owners.stream().map(String::valueOf).collect(Collectors.toSet());
    }
}
