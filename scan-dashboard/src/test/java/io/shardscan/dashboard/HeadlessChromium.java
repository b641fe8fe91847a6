package io.shardscan.dashboard;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.slf4j.LoggerFactory;

/**
 * A real headless Chromium driven through the machine's chromedriver (Debian's {@code chromium} and
 * {@code chromium-driver}), never one that Selenium Manager downloads. Without them the calling test
 * is reported as not run, naming the packages to install.
 */
final class HeadlessChromium {

    static final Path CHROMIUM = Path.of(System.getenv().getOrDefault("SCAN_TEST_CHROMIUM", "/usr/bin/chromium"));
    static final Path CHROMEDRIVER =
            Path.of(System.getenv().getOrDefault("SCAN_TEST_CHROMEDRIVER", "/usr/bin/chromedriver"));
    static final Path SCREENSHOTS = Path.of("target", "dashboard-screenshots");

    private HeadlessChromium() {}

    /** Starts Chromium with a new empty profile, or aborts the test when it is not installed. */
    static ChromeDriver start(Path profile, int width, int height) {
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
            String message = "The dashboard's browser tests did NOT run: " + CHROMIUM + " or " + CHROMEDRIVER
                    + " is missing; install them with: apt-get install -y chromium chromium-driver"
                    + " (or point SCAN_TEST_CHROMIUM and SCAN_TEST_CHROMEDRIVER at them)";
            // in the build's output too, not only in the surefire report of a skipped test
            LoggerFactory.getLogger(HeadlessChromium.class).warn(message);
            Assumptions.abort(message);
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments(
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
                "--user-data-dir=" + profile.toAbsolutePath(),
                "--window-size=" + width + "," + height);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .withTimeout(Duration.ofSeconds(60))
                .build();
        return new ChromeDriver(service, options);
    }

    /** Saves what the browser shows as {@code target/dashboard-screenshots/<name>.png}. */
    static Path screenshot(ChromeDriver driver, String name) throws IOException {
        Files.createDirectories(SCREENSHOTS);
        File shot = driver.getScreenshotAs(OutputType.FILE);
        Path target = SCREENSHOTS.resolve(name + ".png");
        Files.copy(shot.toPath(), target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        return target;
    }
}
