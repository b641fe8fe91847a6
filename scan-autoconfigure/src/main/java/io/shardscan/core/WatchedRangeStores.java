package io.shardscan.core;

import io.shardscan.core.spi.RangeCommit;
import io.shardscan.core.spi.RangeCursor;
import io.shardscan.core.spi.RangeFailure;
import io.shardscan.core.spi.RangeFailures;
import io.shardscan.core.spi.RangeLease;
import io.shardscan.core.spi.RangeLedger;
import io.shardscan.core.spi.RangeProgress;
import io.shardscan.core.spi.RangeStores;
import io.shardscan.core.spi.RangeTable;
import io.shardscan.core.spi.RangeTransactions;
import io.shardscan.core.spi.SchemaReport;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.Row;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * A range task's stores whose every statement of its workers and control thread runs through its
 * {@link RangeStatements} under the statement's kind, so that one its store cancelled names what it
 * was. The bound itself is the stores' own, set when they were built; a wrapper here or around them
 * cannot lift it. The runs pass straight through. Thread-safe as the stores.
 */
final class WatchedRangeStores {

    private WatchedRangeStores() {}

    /** {@code stores} with their table, ledger, cursor and failures watched by {@code statements}. */
    static RangeStores of(RangeStores stores, RangeStatements statements) {
        return new RangeStores(
                stores.runs(),
                new Cursor(stores.cursor(), statements),
                new Ledger(stores.ledger(), statements),
                new Table(stores.table(), statements),
                new Failures(stores.failures(), statements),
                stores.transactions() == null ? null : new Transactions(stores.transactions(), statements));
    }

    /** The transaction passes through (the handler's statements in it are the application's, not watched). */
    private record Transactions(RangeTransactions transactions, RangeStatements statements)
            implements RangeTransactions {

        @Override
        public boolean inTransaction(BooleanSupplier work) {
            return transactions.inTransaction(work);
        }

        @Override
        public boolean commit(String task, RangeCommit commit) {
            return statements.run("position commit", () -> transactions.commit(task, commit));
        }
    }

    private record Table(RangeTable table, RangeStatements statements) implements RangeTable {

        @Override
        public List<Row> page(RangeTask task, long after, long last, int limit) {
            return statements.run("page read", () -> table.page(task, after, last, limit));
        }

        @Override
        public List<Row> rows(RangeTask task, List<Long> ids) {
            return statements.run("row read", () -> table.rows(task, ids));
        }

        @Override
        public long minId(RangeTask task) {
            return statements.run("lowest id read", () -> table.minId(task));
        }

        @Override
        public long maxId(RangeTask task) {
            return statements.run("highest id read", () -> table.maxId(task));
        }

        @Override
        public SchemaReport inspect(RangeTask task) {
            return table.inspect(task);
        }
    }

    private record Ledger(RangeLedger ledger, RangeStatements statements) implements RangeLedger {

        @Override
        public Optional<RangeLease> open(String task, long run, long start, long end, String owner) {
            return statements.run("range open", () -> ledger.open(task, run, start, end, owner));
        }

        @Override
        public List<RangeLease> takeOver(
                String task, long run, String owner, Duration leaseTtl, Duration stallTimeout, int limit) {
            return statements.run(
                    "range takeover", () -> ledger.takeOver(task, run, owner, leaseTtl, stallTimeout, limit));
        }

        @Override
        public List<Long> heartbeat(String task, long run, String owner, Map<Long, Long> leases) {
            return statements.run("heartbeat", () -> ledger.heartbeat(task, run, owner, leases));
        }

        @Override
        public boolean commit(String task, RangeCommit commit) {
            return statements.run("position commit", () -> ledger.commit(task, commit));
        }

        @Override
        public RangeProgress progress(String task, long run) {
            return statements.run("progress read", () -> ledger.progress(task, run));
        }
    }

    private record Cursor(RangeCursor cursor, RangeStatements statements) implements RangeCursor {

        @Override
        public long claim(String task, long run, long size) {
            return statements.run("cursor claim", () -> cursor.claim(task, run, size));
        }

        @Override
        public long peek(String task, long run) {
            return statements.run("cursor read", () -> cursor.peek(task, run));
        }

        @Override
        public void retire(String task, long run) {
            statements.run("cursor retire", () -> cursor.retire(task, run));
        }

        @Override
        public String kind() {
            return cursor.kind();
        }
    }

    private record Failures(RangeFailures failures, RangeStatements statements) implements RangeFailures {

        @Override
        public long count(String task, long run) {
            return statements.run("failure count", () -> failures.count(task, run));
        }

        @Override
        public List<RangeFailure> recent(String task, long run, int limit) {
            return statements.run("failure read", () -> failures.recent(task, run, limit));
        }

        @Override
        public boolean take(String task, long run, long id) {
            return statements.run("failure take", () -> failures.take(task, run, id));
        }

        @Override
        public void record(String task, long run, RangeFailure failure) {
            statements.run("failure write", () -> failures.record(task, run, failure));
        }
    }
}
