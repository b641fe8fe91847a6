package io.shardscan.dashboard;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** The dashboard's settings, under {@code scan.dashboard}. */
@ConfigurationProperties("scan.dashboard")
public class DashboardProperties {

    /** Whether the application serves the dashboard and its JSON API. */
    private boolean enabled = false;

    /** The path the dashboard page and its JSON API (below /api) are served under. */
    private String path = "/scan";

    /** Whether the dashboard may pause, resume, requeue and lift bans even while the scan endpoint's writes are off. */
    private boolean writeEnabled = false;

    /** How often every node's published counters are sampled into the rows/s ring buffer. */
    private Duration rateSample = Duration.ofSeconds(5);

    /** How many rows/s samples the ring buffer keeps per task and node. */
    private int rateSamples = 60;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getPath() {
        return path;
    }

    public void setPath(String path) {
        this.path = path;
    }

    public boolean isWriteEnabled() {
        return writeEnabled;
    }

    public void setWriteEnabled(boolean writeEnabled) {
        this.writeEnabled = writeEnabled;
    }

    public Duration getRateSample() {
        return rateSample;
    }

    public void setRateSample(Duration rateSample) {
        this.rateSample = rateSample;
    }

    public int getRateSamples() {
        return rateSamples;
    }

    public void setRateSamples(int rateSamples) {
        this.rateSamples = rateSamples;
    }
}
