package io.shardscan.jdbc;

import io.shardscan.core.spi.StatementCancelledException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The statements of a store that were bounded when it was built: a {@link JdbcTemplate} whose every
 * statement is cancelled once it ran past the timeout ({@link StatementDeadlines}), its transactions, and the translation of a statement the
 * driver cancelled for it into a {@link StatementCancelledException} that names the table. Built
 * bounded rather than asked for a bounded view, so no wrapper around the store can run its statements
 * unbounded. Thread-safe.
 */
final class BoundedJdbc {

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final SqlDialect dialect;
    private final Duration timeout;

    BoundedJdbc(DataSource dataSource, Duration timeout, SqlDialect dialect) {
        this(dataSource, timeout, dialect, true);
    }

    /**
     * Statements on {@code dataSource} as it is, whose connection Spring's transactions bind: they join
     * the application's transaction on the calling thread, bounded as the others.
     */
    static BoundedJdbc joining(DataSource dataSource, Duration timeout, SqlDialect dialect) {
        return new BoundedJdbc(dataSource, timeout, dialect, false);
    }

    private BoundedJdbc(DataSource dataSource, Duration timeout, SqlDialect dialect, boolean autoCommit) {
        Objects.requireNonNull(dataSource, "dataSource");
        if (autoCommit) {
            // its stores (runs, range cursor, ledger, failures) write Shardscan's own tables and never join an
            // application's transaction: their statements must commit whatever the pool's autocommit
            dataSource = AutoCommitDataSource.of(dataSource);
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("a statement timeout must be positive (was " + timeout + ")");
        }
        this.jdbc = StatementDeadlines.template(dataSource, timeout);
        this.transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        this.dialect = Objects.requireNonNull(dialect, "dialect");
        this.timeout = timeout;
    }

    /** Whether {@code failure} is, anywhere in its causes, a statement {@code dialect}'s driver cancelled by its query timeout. */
    static boolean cancelled(Throwable failure, SqlDialect dialect) {
        Throwable cause = failure;
        for (int depth = 0; cause != null && depth < 16; depth++, cause = cause.getCause()) {
            if (cause instanceof SQLException sql && dialect.cancelledByTimeout(sql)) {
                return true;
            }
        }
        return false;
    }

    JdbcTemplate jdbc() {
        return jdbc;
    }

    TransactionTemplate transactions() {
        return transactions;
    }

    SqlDialect dialect() {
        return dialect;
    }

    /**
     * Runs {@code statements} (one statement, or a transaction of them) on {@code table}.
     *
     * @throws StatementCancelledException when the driver cancelled one for running past the timeout
     */
    <T> T on(String table, Supplier<T> statements) {
        try {
            return statements.get();
        } catch (RuntimeException e) {
            if (cancelled(e, dialect)) {
                throw new StatementCancelledException(table, timeout, e);
            }
            throw e;
        }
    }

    /** {@link #on(String, Supplier)} for statements without a result. */
    void run(String table, Runnable statements) {
        on(table, () -> {
            statements.run();
            return null;
        });
    }
}
