package io.shardscan.bench;

/**
 * The server's transaction count (xact_commit + xact_rollback of {@code pg_stat_database}) of one
 * database from the instant it opens, read through a connection to database {@code postgres}, so
 * that reading it adds nothing to the count.
 */
final class XactWindow {
    private final Pg monitor;
    private final long startNanos = System.nanoTime();
    private final String database;
    private final long startXacts;

    private XactWindow(Pg monitor, String database) {
        this.monitor = monitor;
        this.database = database;
        this.startXacts = xacts();
    }

    static XactWindow open(String url, String database) {
        return new XactWindow(new Pg(url.replaceFirst("^(jdbc:postgresql://[^/]+/)[^?]*", "$1postgres"), 1), database);
    }

    double seconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    long close() {
        try {
            return xacts() - startXacts;
        } finally {
            monitor.close();
        }
    }

    private long xacts() {
        Long xacts = monitor.jdbc()
                .queryForObject(
                        "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = ?",
                        Long.class,
                        database);
        return xacts == null ? 0 : xacts;
    }
}
