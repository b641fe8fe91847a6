package io.shardscan.bench;

/**
 * What one system cost the database while it ran, in figures that do not move with the machine's
 * load: the statements it sent (counted on the client side, each of its pools wrapped in a
 * {@code CountingDataSource}) and the WAL the server wrote ({@code pg_current_wal_lsn()} before and
 * after). The systems run one after another on the same database, so each window holds one system's
 * work. Not the server's transaction count: {@code pg_stat_database} takes a backend's counts up to a
 * second late, which a run of a fraction of a second never sees.
 */
record DbCost(long statements, long walBytes) {

    double statementsPer1000(long rows) {
        return rows == 0 ? 0 : statements * 1000.0 / rows;
    }

    double walBytesPerRow(long rows) {
        return rows == 0 ? 0 : (double) walBytes / rows;
    }

    /** Opened before a system starts, closed once it is done. */
    static final class Window {
        private final Pg monitor;
        private final String startLsn;

        private Window(String url) {
            this.monitor = new Pg(url, 1);
            this.startLsn = monitor.jdbc().queryForObject("SELECT pg_current_wal_lsn()::text", String.class);
        }

        static Window open(String url) {
            return new Window(url);
        }

        /** @param statements what the system's wrapped pools counted meanwhile */
        DbCost close(long statements) {
            try {
                Long wal = monitor.jdbc()
                        .queryForObject(
                                "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), ?::pg_lsn)::bigint",
                                Long.class,
                                startLsn);
                return new DbCost(statements, wal == null ? 0 : wal);
            } finally {
                monitor.close();
            }
        }
    }
}
