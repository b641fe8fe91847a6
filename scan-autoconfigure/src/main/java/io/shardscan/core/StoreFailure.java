package io.shardscan.core;

import io.shardscan.core.task.InvalidTaskException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The one rule that tells whether a failed store call means the database could not be reached
 * (the health's {@code databaseReachable}), or that it answered and refused the statement. A
 * refusal — a bad statement, a value it cannot convert, a constraint — is a fault of the task or
 * its table, which a healthy database reports at once; taking the node out of service for it
 * would hide the cause behind "database down". Stateless.
 */
final class StoreFailure {

    private StoreFailure() {}

    /**
     * Whether {@code failure} means the store was not reached: somewhere in its causes a connection
     * failure (SQLState class {@code 08}, a {@link SQLNonTransientConnectionException}), a
     * recoverable or transient one (a pool that gave no connection, a timeout, a deadlock: Spring's
     * {@code CannotGetJdbcConnectionException}, {@code DataAccessResourceFailureException},
     * {@code TransientDataAccessException}); or no {@link SQLException} at all, which tells nothing,
     * so it counts as not reached. A {@link StatementTimeout} was reached: the database ran the
     * statement and cancelled it when it waited too long (a locked table is no database down). Any other {@link SQLException}, or an {@link InvalidTaskException}
     * (the table turned out unusable), is the database's answer; an {@link Error} (out of memory
     * decoding a page, a class gone from a replaced jar) is the node's own failure, not a sign that
     * the database was not reached.
     */
    static boolean unreachable(Throwable failure) {
        boolean answered = false;
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (Throwable t = failure; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
            if (t instanceof StatementTimeout) {
                // the driver's SQLTimeoutException beneath it is an SQLTransientException, read as "not reached"
                return false;
            }
            if (t instanceof InvalidTaskException || t instanceof Error) {
                // the store read the table and found it unusable (dropped, a column gone), or the node failed:
                // an OutOfMemoryError decoding a page of large rows was logged as "the database was not reached"
                answered = true;
            } else if (t instanceof SQLException sql) {
                if (connectionFailure(sql)) {
                    return true;
                }
                answered = true;
            }
        }
        return !answered;
    }

    /**
     * The failure as a log line shows it: itself; for a {@link VirtualMachineError}, that the node
     * failed and, out of memory, what to lower; and when the database was not reached, the
     * deepest cause (a pool's wrapper hides "Connection refused" or "Connection is not available"
     * behind "Failed to obtain JDBC Connection") and what to check.
     */
    static String describe(Throwable failure) {
        if (failure instanceof OutOfMemoryError) {
            return failure + "; this node ran out of memory, not a database failure: a page of rows (page-size of"
                    + " them, each with every column its row type reads) or the work beside it did not fit the heap."
                    + " Lower the task's page-size, read fewer or smaller columns, or give the JVM more heap (-Xmx)";
        }
        if (failure instanceof VirtualMachineError) {
            return failure + "; this node's JVM failed, not the database";
        }
        if (!unreachable(failure)) {
            return failure.toString();
        }
        Throwable root = failure;
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        while (root.getCause() != null && seen.put(root, Boolean.TRUE) == null) {
            root = root.getCause();
        }
        return failure + (root == failure ? "" : " (caused by " + root + ")")
                + "; the database was not reached: check that it runs and that spring.datasource.url points at it";
    }

    private static boolean connectionFailure(SQLException e) {
        String state = e.getSQLState();
        return e instanceof SQLNonTransientConnectionException
                || e instanceof SQLTransientException
                || e instanceof SQLRecoverableException
                || (state != null && state.startsWith("08"));
    }
}
