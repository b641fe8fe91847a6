package io.shardscan.autoconfigure;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import org.springframework.boot.convert.DurationUnit;

/** Level 2 of a task's endpoint blacklist, under {@code scan.tasks.<name>.level2.*}: shared by every node. */
public class BlacklistLevel2Properties {

    /** Level-1 trips, on any node, within the window that ban an endpoint on every node. */
    private int trips = 3;

    /** How far back level-1 trips count towards a ban; needs a unit, e.g. 5m. */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration window = Duration.ofMinutes(5);

    /** How long a banned endpoint's rows are not fetched before one probe row is let through; needs a unit, e.g. 5m. */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration ban = Duration.ofMinutes(5);

    // whether any of them was set, which needs an endpoint column
    private boolean set;

    public int getTrips() {
        return trips;
    }

    public void setTrips(int trips) {
        this.set = true;
        this.trips = trips;
    }

    public Duration getWindow() {
        return window;
    }

    public void setWindow(Duration window) {
        this.set = true;
        this.window = window;
    }

    public Duration getBan() {
        return ban;
    }

    public void setBan(Duration ban) {
        this.set = true;
        this.ban = ban;
    }

    boolean anySet() {
        return set;
    }
}
