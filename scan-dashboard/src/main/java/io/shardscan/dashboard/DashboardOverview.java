package io.shardscan.dashboard;

import io.shardscan.actuate.ScanDescriptor;
import java.util.List;
import java.util.Map;

/**
 * What the dashboard's overview reads in one request: the scan endpoint's view of this node (every
 * task with its members and their published counters, shard ownership, cached backlog, bans, runs,
 * range jobs) and the rows/s ring buffer. Built without a query. Immutable.
 *
 * @param node the id of the node that answered
 * @param writeEnabled whether the dashboard's writes are switched on
 * @param rateSampleSeconds the seconds between two rows/s samples
 * @param scan what {@code GET /actuator/scan} returns
 * @param rates per task, per node: rows/s between consecutive samples, oldest first
 */
public record DashboardOverview(
        String node,
        boolean writeEnabled,
        double rateSampleSeconds,
        ScanDescriptor scan,
        Map<String, Map<String, List<Double>>> rates) {

    public DashboardOverview {
        rates = Map.copyOf(rates);
    }
}
