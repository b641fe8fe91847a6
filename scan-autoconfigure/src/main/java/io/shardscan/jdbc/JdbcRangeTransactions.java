package io.shardscan.jdbc;

import io.shardscan.core.spi.RangeCommit;
import io.shardscan.core.spi.RangeTransactions;
import java.time.Duration;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@link RangeTransactions} on the table {@code scan_range} of the DataSource the handler writes to:
 * each transaction is one of the application's transaction manager, and the position commit runs
 * on the connection that transaction bound (not on the autocommitting connections of
 * {@link JdbcRangeLedger}), so a JdbcTemplate's, MyBatis' or Spring Data JPA's statements of the
 * handler and the fenced {@code UPDATE scan_range … WHERE epoch = ?} commit together. The handler runs
 * first and the position is written last, so the range's row stays locked only from that
 * {@code UPDATE} to the commit. The position commit is bounded by the statement timeout given at
 * construction (the handler's own statements are not) and fails as a
 * {@link io.shardscan.core.spi.StatementCancelledException} naming {@code scan_range}. Thread-safe.
 */
public final class JdbcRangeTransactions implements RangeTransactions {

    private static final String TABLE = "scan_range";

    private final BoundedJdbc bounded;
    private final TransactionTemplate transactions;

    /**
     * Transactions of a {@link DataSourceTransactionManager} of their own on {@code dataSource}: for
     * handlers that use plain JDBC (a JdbcTemplate) on it.
     *
     * @param statementTimeout how long the position commit may run before the driver cancels it: the
     *     engine's {@link io.shardscan.core.EngineSettings#statementTimeout()}
     */
    public JdbcRangeTransactions(DataSource dataSource, Duration statementTimeout) {
        this(dataSource, new DataSourceTransactionManager(dataSource), statementTimeout, SqlDialect.detect(dataSource));
    }

    /**
     * Transactions of {@code transactionManager}, the application's, which must expose its
     * transactions as JDBC connections of {@code dataSource} (a {@code DataSourceTransactionManager}
     * or a {@code JpaTransactionManager} over it), on a database of {@code dialect}.
     */
    public JdbcRangeTransactions(
            DataSource dataSource,
            PlatformTransactionManager transactionManager,
            Duration statementTimeout,
            SqlDialect dialect) {
        this.bounded = BoundedJdbc.joining(dataSource, statementTimeout, dialect);
        this.transactions = new TransactionTemplate(Objects.requireNonNull(transactionManager, "transactionManager"));
        // a new transaction, whatever the caller's: a requeue called from the application's own transaction
        // must not join it (a failing try would mark the caller's rollback-only)
        this.transactions.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
    }

    @Override
    public boolean inTransaction(BooleanSupplier work) {
        Boolean committed = transactions.execute(status -> {
            if (work.getAsBoolean()) {
                return true;
            }
            status.setRollbackOnly();
            return false;
        });
        return Boolean.TRUE.equals(committed);
    }

    @Override
    public boolean commit(String task, RangeCommit commit) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("a position commit of task " + task + " outside inTransaction: it would"
                    + " commit apart from the handler's statements");
        }
        // no rerun on a deadlock, as the ledger's own commit does: the transaction it would rerun in is
        // aborted; the exception rolls the handler's statements back with it and fails the range's scan
        return bounded.on(TABLE, () -> JdbcRangeLedger.write(bounded.jdbc(), bounded.dialect(), task, commit));
    }
}
