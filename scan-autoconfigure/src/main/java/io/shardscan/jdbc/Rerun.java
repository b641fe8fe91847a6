package io.shardscan.jdbc;

import java.time.Duration;
import java.util.function.Supplier;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.dao.PessimisticLockingFailureException;

/**
 * Runs a statement or a transaction once more when the database chose it as a deadlock's victim
 * (or, on PostgreSQL, a serialization failure's), as InnoDB asks of its clients: the victim was
 * rolled back whole, so running it again writes it once. Up to five runs, 10 ms apart and doubling,
 * with jitter, so that nodes that met do not meet again; then the last failure is thrown. Only
 * around whole transactions or statements on their own: inside a transaction the victim's rollback
 * took the earlier statements with it.
 */
final class Rerun {

    private static final RetryTemplate DEADLOCK = new RetryTemplate(policy().build());

    private static final RetryTemplate DEADLOCK_OR_DUPLICATE_KEY =
            new RetryTemplate(policy().includes(DuplicateKeyException.class).build());

    private Rerun() {}

    /** Runs the work, once more while it is a deadlock's victim. */
    static <T> T onDeadlock(Supplier<T> work) {
        return DEADLOCK.invoke(work);
    }

    /**
     * Runs the work, once more while it is a deadlock's victim or meets a duplicate key: for a
     * {@link RowUpsert} or a first insert that met another node's, whose second run finds the row
     * that node inserted.
     */
    static void onDeadlockOrDuplicateKey(Runnable work) {
        DEADLOCK_OR_DUPLICATE_KEY.invoke(work);
    }

    /** {@link #onDeadlockOrDuplicateKey(Runnable)} for work with a result. */
    static <T> T onDeadlockOrDuplicateKey(Supplier<T> work) {
        return DEADLOCK_OR_DUPLICATE_KEY.invoke(work);
    }

    private static RetryPolicy.Builder policy() {
        return RetryPolicy.builder()
                .includes(PessimisticLockingFailureException.class)
                .maxRetries(4)
                .delay(Duration.ofMillis(10))
                .jitter(Duration.ofMillis(10))
                .multiplier(2);
    }
}
