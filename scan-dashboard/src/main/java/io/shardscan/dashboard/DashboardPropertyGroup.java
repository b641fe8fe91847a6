package io.shardscan.dashboard;

import io.shardscan.autoconfigure.ScanPropertyGroup;

/** Tells the check for unknown {@code scan.*} keys that {@code scan.dashboard.*} is the dashboard's. */
public final class DashboardPropertyGroup implements ScanPropertyGroup {

    @Override
    public String name() {
        return "dashboard";
    }

    @Override
    public Class<?> type() {
        return DashboardProperties.class;
    }
}
