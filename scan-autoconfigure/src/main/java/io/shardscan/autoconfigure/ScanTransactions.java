package io.shardscan.autoconfigure;

import io.shardscan.core.task.InvalidTaskException;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Chooses the transaction manager of the task store: the {@link ScanTransactionManager} one, else
 * the application's unique or primary one, else a {@link DataSourceTransactionManager} of
 * Shardscan's DataSource. The application's own is what lets a transactional handler's JPA
 * statements and the fenced write-back share one transaction; a manager of another DataSource
 * would commit the write-back apart from the handler's work, so it stops startup.
 */
final class ScanTransactions {

    private ScanTransactions() {}

    static PlatformTransactionManager choose(
            DataSource dataSource,
            ObjectProvider<PlatformTransactionManager> qualified,
            ObjectProvider<PlatformTransactionManager> any) {
        PlatformTransactionManager chosen = qualified.getIfAvailable(any::getIfUnique);
        if (chosen == null) {
            return new DataSourceTransactionManager(dataSource);
        }
        @Nullable DataSource theirs = dataSourceOf(chosen);
        if (theirs != null && !same(theirs, dataSource)) {
            throw new InvalidTaskException(
                    "the transaction manager " + chosen.getClass().getName()
                            + " runs on the DataSource " + theirs + ", not on Shardscan's DataSource " + dataSource
                            + ": a transactional handler's work and the write-back would commit apart. Declare the"
                            + " transaction manager of Shardscan's DataSource as a bean annotated @ScanTransactionManager"
                            + " (io.shardscan.autoconfigure), or point Shardscan at that manager's DataSource with"
                            + " @ScanDataSource");
        }
        return chosen;
    }

    /** The DataSource of a DataSourceTransactionManager, JpaTransactionManager or the like; null when it has none. */
    private static @Nullable DataSource dataSourceOf(PlatformTransactionManager manager) {
        BeanWrapperImpl wrapper = new BeanWrapperImpl(manager);
        if (!wrapper.isReadableProperty("dataSource")) {
            return null;
        }
        return wrapper.getPropertyValue("dataSource") instanceof DataSource theirs ? theirs : null;
    }

    private static boolean same(DataSource theirs, DataSource ours) {
        return unwrap(theirs) == unwrap(ours);
    }

    /** A transaction-aware or lazy proxy hands out its target's connections. */
    private static DataSource unwrap(DataSource dataSource) {
        DataSource current = dataSource;
        while (current instanceof DelegatingDataSource delegating && delegating.getTargetDataSource() != null) {
            current = delegating.getTargetDataSource();
        }
        return current;
    }
}
