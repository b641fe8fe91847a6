package io.shardscan.core.spi;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where range tasks keep their runs, cursors, progress and failures, and how they read their tables.
 * Immutable.
 *
 * @param runs the runs, each with its id snapshot and range size ({@link TaskRun#range()}), kept as
 *     the runs of every task
 * @param cursor the shared cursor ranges are claimed from; the coordinator's choice (Redis or JDBC)
 * @param ledger one progress row per range, fenced by epochs
 * @param table reads the scanned tables
 * @param failures the rows that failed every in-place try
 * @param transactions runs a transactional task's handler and commits its position in one
 *     transaction on the ledger's database; {@code null} when these stores cannot, and then no range
 *     task may be transactional
 */
public record RangeStores(
        TaskRuns runs,
        RangeCursor cursor,
        RangeLedger ledger,
        RangeTable table,
        RangeFailures failures,
        @Nullable RangeTransactions transactions) {

    public RangeStores {
        Objects.requireNonNull(runs, "runs");
        Objects.requireNonNull(cursor, "cursor");
        Objects.requireNonNull(ledger, "ledger");
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(failures, "failures");
    }

    /** Stores without {@linkplain #transactions() transactions}: no range task on them may be transactional. */
    public RangeStores(
            TaskRuns runs, RangeCursor cursor, RangeLedger ledger, RangeTable table, RangeFailures failures) {
        this(runs, cursor, ledger, table, failures, null);
    }

    /** These stores with {@code transactions}. */
    public RangeStores withTransactions(RangeTransactions transactions) {
        return new RangeStores(runs, cursor, ledger, table, failures, Objects.requireNonNull(transactions));
    }

    /**
     * How far a run got, as views, metrics, the log and the run's final counts report it: the
     * ledger's sums, with {@code processed} the rows that succeeded (handled, less those recorded as
     * failed) and {@code failed} the rows recorded as failed now, so a requeued row that succeeds moves
     * from failed to processed. Two reads.
     */
    public RangeProgress progress(String task, long run) {
        RangeProgress handled = ledger.progress(task, run);
        long failedNow = failures.count(task, run);
        return new RangeProgress(
                handled.ranges(),
                handled.rangesDone(),
                Math.max(0, handled.processed() - failedNow),
                failedNow,
                handled.coveredIds());
    }
}
