package io.shardscan.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * One connection of the pool that a node's lease renewals keep for themselves, so that they never
 * wait for a connection behind the application's or the rounds' statements: a table locked for
 * 15 s held every connection of a 10-connection pool in statements that waited for the lock, and
 * another task, on another table, lost all its leases. Taken at the first use and kept, outside any
 * transaction of the application; given back after a failure, and the work runs once more on a
 * fresh one when the kept one failed (a server or a firewall may close a connection that lived
 * long). Thread-safe: one work at a time.
 */
final class KeptConnection {

    private final DataSource dataSource;
    private @Nullable Connection connection;
    private @Nullable SingleConnectionDataSource kept;
    private @Nullable JdbcTemplate jdbc;
    /** The timeout {@link #jdbc} bounds its statements by. */
    private @Nullable Duration jdbcTimeout;

    KeptConnection(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /**
     * Runs {@code work} on the kept connection, taking one first when none is kept; each of its
     * statements is cancelled once it ran for {@code timeout} ({@link StatementDeadlines}, as every
     * bounded statement of Shardscan's).
     */
    synchronized <T> T run(Duration timeout, Function<JdbcTemplate, T> work) {
        boolean wasKept = kept != null;
        RuntimeException first;
        try {
            return work.apply(template(timeout));
        } catch (RuntimeException e) {
            giveBack();
            if (!wasKept) {
                throw e;
            }
            first = e;
        }
        try {
            return work.apply(template(timeout));
        } catch (RuntimeException e) {
            giveBack();
            throw new IllegalStateException(
                    e.getMessage() + "; before, on the connection kept until then: " + first, e);
        }
    }

    /** Gives the kept connection back to the pool, if any; a later {@link #run} takes another. */
    synchronized void close() {
        giveBack();
    }

    private JdbcTemplate template(Duration timeout) {
        if (kept == null) {
            try {
                Connection taken = dataSource.getConnection();
                taken.setAutoCommit(true);
                connection = taken;
            } catch (SQLException e) {
                throw new IllegalStateException("no connection for the lease renewals: " + e.getMessage(), e);
            }
            kept = new SingleConnectionDataSource(connection, true);
        }
        if (jdbc == null || !timeout.equals(jdbcTimeout)) {
            jdbc = StatementDeadlines.template(kept, timeout);
            jdbcTimeout = timeout;
        }
        return jdbc;
    }

    private void giveBack() {
        Connection taken = connection;
        connection = null;
        kept = null;
        jdbc = null;
        if (taken != null) {
            try {
                taken.close();
            } catch (SQLException e) {
                // it is given up either way; the pool drops a broken connection itself
            }
        }
    }
}
