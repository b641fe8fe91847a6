package io.shardscan.bench;

import io.shardscan.testsupport.CountingDataSource;

/**
 * What a statement of the tasks scenario is on, told by its kind (its first 60 characters, as {@link
 * CountingDataSource} keeps it): with JDBC leases the coordinator's statements are on {@code scan_*} tables.
 */
enum StatementTarget {
    /** A task's table: probes, fetches, write-backs. */
    TASK_TABLES,
    /** The coordinator's: leases, members (the node's heartbeat) and fences. */
    LEASES,
    /** Shardscan's other tables: pause reads, endpoint bans, and anything else. */
    OTHER;

    /** What every task's table is named after. */
    static final String TABLE_PREFIX = "tb_order_";

    static StatementTarget of(String kind) {
        if (kind.contains(TABLE_PREFIX)) {
            return TASK_TABLES;
        }
        // the JDBC coordinator's reads of members and leases are unions whose rows start with a tag, 'm' or 'l'
        if (kind.matches("(?s).*\\bscan_(lease|member|fence)\\b.*") || kind.matches("SELECT '[ml]'.*")) {
            return LEASES;
        }
        return OTHER;
    }
}
