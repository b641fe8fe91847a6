package io.shardscan.core.spi;

import java.util.function.BooleanSupplier;

/**
 * The transactions of a transactional range task ({@code @ScanTask(transactional = true)} in range
 * mode): each try of a unit (one row, or one page for a batch handler) runs in a transaction of the
 * application's, which the handler's own statements on the same DataSource join, and a try that
 * succeeded commits the range's position past its unit in that same transaction, fenced by the
 * range's epoch, so the handler's effects and the position commit together or not at all.
 * Thread-safe.
 */
public interface RangeTransactions {

    /**
     * Runs {@code work} in a new transaction (one the caller's own transaction, if any, does not join):
     * it commits when {@code work} returns {@code true} and rolls back when it returns {@code false} or
     * throws.
     *
     * @return whether it committed
     */
    boolean inTransaction(BooleanSupplier work);

    /**
     * Writes {@code commit} as {@link RangeLedger#commit} does, within the transaction
     * {@link #inTransaction} runs on the calling thread, only while the range still holds the commit's
     * epoch; nothing of it is durable before that transaction commits.
     *
     * @return {@code true} when written; {@code false} when a newer epoch took the range and nothing
     *     changed, and the caller rolls its transaction back
     * @throws IllegalStateException when no transaction of {@link #inTransaction} runs on this thread
     */
    boolean commit(String task, RangeCommit commit);
}
