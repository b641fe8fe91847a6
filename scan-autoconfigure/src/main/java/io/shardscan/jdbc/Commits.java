package io.shardscan.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Makes a store's write that runs outside a transaction of its own (one statement, or a few that need
 * not be atomic) commit. Where the pool's connections autocommit, the common case, it runs as it is:
 * one round trip, which is why those writes run without a transaction. Where they do not (HikariCP's
 * {@code autoCommit=false}), the pool would roll it back when the connection comes back, so it runs in
 * a transaction of the store's, which commits it, or joins the transaction already open (a
 * transactional handler's). Whether connections autocommit is read from a connection of the pool on
 * the first write. Thread-safe.
 */
final class Commits {

    private final DataSource dataSource;
    private final TransactionTemplate transactions;
    private volatile @Nullable Boolean autoCommit;

    Commits(DataSource dataSource, TransactionTemplate transactions) {
        this.dataSource = dataSource;
        this.transactions = transactions;
    }

    /** Runs {@code write} so that it commits; returns what it returns. */
    <T> T write(Supplier<T> write) {
        return autoCommit() ? write.get() : transactions.execute(status -> write.get());
    }

    private boolean autoCommit() {
        Boolean known = autoCommit;
        if (known == null) {
            // a connection of the pool as it hands them out, not the one of a transaction open on this thread
            try (Connection connection = dataSource.getConnection()) {
                known = connection.getAutoCommit();
            } catch (SQLException e) {
                throw new IllegalStateException("cannot read whether connections autocommit: " + e.getMessage(), e);
            }
            autoCommit = known;
        }
        return known;
    }
}
