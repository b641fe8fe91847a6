package io.shardscan.core.spi;

import io.shardscan.core.task.TaskDefinition;
import java.util.ArrayList;
import java.util.List;

/**
 * Pending rows that no fetch ever returns because of what the engine's own columns hold: a NULL or
 * negative retry count (no tier covers it; an ORM that writes {@code null} for an unset
 * {@code Integer} makes such rows), or a failed row (retry count above 0) whose updated-at is NULL
 * (a failed row is due its tier's interval after its last update, so it never is). The engine does
 * not read a NULL retry count as 0: {@code COALESCE} or {@code OR ... IS NULL} in the fetch would
 * turn its index range scan into a scan and sort of the shard's pending rows. Immutable.
 *
 * @param nullRetries pending rows whose retry count is NULL
 * @param negativeRetries pending rows whose retry count is below 0
 * @param failedWithoutUpdatedAt pending rows whose retry count is above 0 and whose updated-at is NULL
 */
public record UnfetchableRows(long nullRetries, long negativeRetries, long failedWithoutUpdatedAt) {

    /** No such rows, or a store that does not count them. */
    public static final UnfetchableRows NONE = new UnfetchableRows(0, 0, 0);

    /** Whether there is any such row. */
    public boolean any() {
        return nullRetries > 0 || negativeRetries > 0 || failedWithoutUpdatedAt > 0;
    }

    /** How many such rows there are, of every kind. */
    public long total() {
        return nullRetries + negativeRetries + failedWithoutUpdatedAt;
    }

    /** The cause and the fix for each kind of such rows, in one text; empty when there is none. */
    public String describe(TaskDefinition task) {
        return String.join(" ", warnings(task, List.of()));
    }

    /**
     * One line per kind of such rows, each naming the count, the column, the figure of
     * {@code /actuator/scan} that counts them and the fix.
     *
     * @param retryColumnStatements the statements that make the retry column NOT NULL DEFAULT 0,
     *     when it allows NULL; empty when it does not or is not known
     * @return the lines, empty when there is no such row
     */
    public List<String> warnings(TaskDefinition task, List<String> retryColumnStatements) {
        String property = "scan.tasks." + task.name();
        String table = task.table();
        String retries = task.columns().retry();
        List<String> lines = new ArrayList<>();
        if (nullRetries > 0) {
            List<String> fix = retryColumnStatements.isEmpty()
                    ? List.of("UPDATE " + table + " SET " + retries + " = 0 WHERE " + retries + " IS NULL")
                    : retryColumnStatements;
            lines.add(property + ": " + nullRetries + " pending rows of " + table + " have a NULL retry count ("
                    + retries + "); no tier fetches them, so they never run (/actuator/scan counts them as"
                    + " backlog.nullRetryCount). A writer that leaves the column NULL made them (an ORM writing null"
                    + " for an unset Integer does). Give them 0 and make the column NOT NULL DEFAULT 0"
                    + (retryColumnStatements.isEmpty() ? " (the startup check prints the ALTER TABLE)" : "")
                    + ":\n  " + String.join(";\n  ", fix) + ";");
        } else if (!retryColumnStatements.isEmpty()) {
            lines.add(property + ": column " + retries + " of " + table + " allows NULL: a row written with a NULL"
                    + " retry count (an ORM writing null for an unset Integer) is never fetched, so it never runs."
                    + " Make the column NOT NULL DEFAULT 0:\n  " + String.join(";\n  ", retryColumnStatements) + ";");
        }
        if (negativeRetries > 0) {
            lines.add(property + ": " + negativeRetries + " pending rows of " + table + " have a negative retry count ("
                    + retries + "); no tier fetches them, so they never run (/actuator/scan counts them as"
                    + " backlog.negativeRetryCount). Give them 0:\n  UPDATE " + table + " SET " + retries
                    + " = 0 WHERE " + task.columns().status() + " = "
                    + task.statuses().pending() + " AND " + retries + " < 0;");
        }
        if (failedWithoutUpdatedAt > 0) {
            lines.add(property + ": " + failedWithoutUpdatedAt + " failed pending rows of " + table + " ("
                    + retries + " above 0) have a NULL " + task.columns().updatedAt()
                    + "; a failed row is due its tier's"
                    + " interval after its last update, so they never run (/actuator/scan counts them as"
                    + " backlog.failedWithoutUpdatedAt). Give them one and make the column NOT NULL:\n  UPDATE "
                    + table + " SET " + task.columns().updatedAt() + " = CURRENT_TIMESTAMP WHERE "
                    + task.columns().status()
                    + " = " + task.statuses().pending() + " AND " + retries + " > 0 AND "
                    + task.columns().updatedAt()
                    + " IS NULL;");
        }
        return lines;
    }
}
