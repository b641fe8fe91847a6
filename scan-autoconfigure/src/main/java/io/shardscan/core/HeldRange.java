package io.shardscan.core;

import io.shardscan.core.spi.RangeLease;

/**
 * A range this node scans: its lease, and whether the heartbeat found it taken over (then the scan
 * stops before its next row and writes nothing more). Thread-safe.
 */
final class HeldRange {

    final long run;
    final RangeLease lease;
    private volatile boolean lost;

    HeldRange(long run, RangeLease lease) {
        this.run = run;
        this.lease = lease;
    }

    boolean lost() {
        return lost;
    }

    void markLost() {
        lost = true;
    }
}
