package io.shardscan.core.spi;

import io.shardscan.core.EngineSettings;
import java.time.Duration;
import java.util.Objects;

/**
 * Thrown by a store when the driver or the database cancelled one of its statements for running
 * past the statement timeout the store was built with ({@link EngineSettings#statementTimeout()}):
 * the table is locked or the database is too slow. The database was reached. Range tasks' stores
 * throw it; the engine names the statement's kind, the task and the fix around it.
 */
public final class StatementCancelledException extends RuntimeException {

    private final String table;
    private final Duration timeout;

    /**
     * @param table the table the statement waited on (the first one it writes, for a transaction)
     * @param timeout the bound it ran past
     * @param cause what the driver threw
     */
    public StatementCancelledException(String table, Duration timeout, Throwable cause) {
        super(
                "a statement on " + Objects.requireNonNull(table, "table") + " was cancelled after "
                        + Objects.requireNonNull(timeout, "timeout"),
                cause);
        this.table = table;
        this.timeout = timeout;
    }

    /** The table the statement waited on. */
    public String table() {
        return table;
    }

    /** The bound the statement ran past. */
    public Duration timeout() {
        return timeout;
    }
}
