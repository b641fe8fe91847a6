package io.shardscan.core;

import io.shardscan.core.spi.RangeCommit;
import io.shardscan.core.spi.RangeFailure;
import io.shardscan.core.spi.RangeLease;
import io.shardscan.core.spi.RangeStores;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.RunRange;
import io.shardscan.core.task.ScanContext;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;

/**
 * Scans one held range in id order, page by page, from its committed position: runs each row,
 * commits the position (with the rows handled and those that failed) once the commit interval has
 * passed since the last commit, when the range ends, before a tail range waits for new ids and when
 * the task stops. A commit the ledger refuses (a newer epoch took the range) ends the scan at once; so
 * does the heartbeat finding the range lost. Redo after a takeover is at most the rows handled since
 * the last commit: those of one commit interval and the unit in hand; a read that fails commits the rows
 * handled before it, then gives the range up. Each commit reports its rows at
 * once (a follow task's tail range never ends). In a following run the range is done only once its
 * ids are settled ({@link IdHorizon}): the table's highest id is read before the page, never after it,
 * and ids missing when read are read again once the follow grace passed, so a row whose transaction
 * took its id before a higher one and committed after it still runs. A transactional task's units
 * each commit the position past them in their own transaction, with the handler's statements: the
 * redo after a takeover is then only the unit in hand, whose statements rolled back. One instance per
 * worker thread.
 */
final class RangeScan {

    private static final System.Logger log = ScanLogging.getLogger(RangeScan.class);

    private final RangeTask task;
    private final RangeStores stores;
    private final RangeHandling handling;
    private final ScanClock clock;
    private final String node;
    private final BooleanSupplier running;
    private final IdleWait idle;
    private final java.util.function.LongConsumer committedRows;
    private final IdHorizon horizon;

    private long position;
    private long handled;
    private List<RangeFailure> failures = new ArrayList<>();
    private long lastCommitNanos;
    private long lateLoggedNanos;

    /** How often at most a scan logs rows that committed late. */
    static final java.time.Duration LATE_LOG_INTERVAL = java.time.Duration.ofMinutes(1);

    /** How a tail range waits for new ids; returns early when the task stops. */
    @FunctionalInterface
    interface IdleWait {
        void pause(java.time.Duration duration);
    }

    RangeScan(
            RangeTask task,
            RangeStores stores,
            RangeHandling handling,
            ScanClock clock,
            String node,
            BooleanSupplier running,
            IdleWait idle,
            java.util.function.LongConsumer committedRows,
            IdHorizon horizon) {
        this.task = task;
        this.stores = stores;
        this.handling = handling;
        this.clock = clock;
        this.node = node;
        this.running = running;
        this.idle = idle;
        this.committedRows = committedRows;
        this.horizon = horizon;
    }

    /**
     * Scans the range until it is done, lost, or the task stops (then commits what it handled).
     *
     * @param ids the run's ids and range size, for the range's index in {@link ScanContext#shard()}
     * @return the rows handled and committed
     */
    long scan(HeldRange held, RunRange ids) {
        RangeLease lease = held.lease;
        int index = (int) Math.min(Integer.MAX_VALUE, (lease.start() - ids.lowId()) / ids.rangeSize());
        position = lease.position();
        handled = 0;
        failures = new ArrayList<>();
        lastCommitNanos = clock.nanos();
        UnsettledIds unsettled = new UnsettledIds(lease.position());
        long committed = 0;
        int pageSize = task.definition().rounds().pageSize();
        long commitEvery = task.definition().rounds().commitInterval().toNanos();
        // one context per range for the first try, which is almost every call: none made per row
        ScanContext first = new ScanContext(task.name(), node, index, lease.epoch(), 1);
        IntFunction<ScanContext> context =
                attempt -> attempt == 1 ? first : new ScanContext(task.name(), node, index, lease.epoch(), attempt);
        while (running.getAsBoolean() && !held.lost()) {
            long bound;
            long from;
            List<Row> page;
            try {
                bound = bound(lease);
                from = unsettled.from(position, bound);
                page = stores.table().page(task, from, lease.end(), pageSize);
            } catch (RuntimeException e) {
                keepHandled(held, e);
                throw e;
            }
            List<Row> runs = runnable(page, unsettled);
            late(lease, runs);
            for (int next = 0; next < runs.size(); ) {
                if (!running.getAsBoolean() || held.lost()) {
                    break;
                }
                int to = handling.batch() ? runs.size() : next + 1;
                List<Row> rows = to - next == 1 ? List.of(runs.get(next)) : runs.subList(next, to);
                next = to;
                if (handling.transactional()) {
                    long written = handleCommitting(held, rows, context, unsettled);
                    if (written < 0) {
                        return committed;
                    }
                    committed += written;
                    continue;
                }
                failures.addAll(handling.handle(rows, context));
                passed(rows, unsettled);
                handled += rows.size();
                if (clock.nanos() - lastCommitNanos >= commitEvery) {
                    long written = commit(held, false);
                    if (written < 0) {
                        return committed;
                    }
                    committed += written;
                }
            }
            if (held.lost()) {
                return committed;
            }
            boolean last = page.size() < pageSize && running.getAsBoolean();
            if (running.getAsBoolean()) {
                unsettled.read(
                        from, last ? lease.end() : page.get(page.size() - 1).id(), bound);
            }
            boolean done = last && unsettled.settled() >= lease.end();
            if (!done && !last && running.getAsBoolean()) {
                // not every page: the rows since the last commit are within one commit interval (above),
                // and a commit per page of 200 took a quarter of the workers' CPU samples (docs/benchmarks.md)
                continue;
            }
            long written = commit(held, done);
            if (written < 0) {
                return committed;
            }
            committed += written;
            if (done || !running.getAsBoolean()) {
                return committed;
            }
            if (last) {
                // a tail range of a following task: no new id yet, or ids not yet settled
                idle.pause(task.idleInterval());
            }
        }
        if (!held.lost() && (handled > 0 || !failures.isEmpty())) {
            long written = commit(held, false);
            committed += Math.max(0, written);
        }
        return committed;
    }

    /** The rows of {@code page} to run: all of them, but for ids read before that ran or were passed. */
    private List<Row> runnable(List<Row> page, UnsettledIds unsettled) {
        for (int i = 0; i < page.size(); i++) {
            if (!unsettled.runs(page.get(i).id(), position)) {
                List<Row> runs = new ArrayList<>(page.subList(0, i));
                for (Row row : page.subList(i + 1, page.size())) {
                    if (unsettled.runs(row.id(), position)) {
                        runs.add(row);
                    }
                }
                return runs;
            }
        }
        return page;
    }

    /**
     * The ids a page read now finds all of: a once run's are all there; a following run's are those
     * the table showed at least the follow grace ago. While none reached the range's end, the table's
     * highest id is read first, before the page, so a row committed after the page is never counted as
     * seen.
     */
    private long bound(RangeLease lease) {
        if (task.run() == RunMode.ONCE) {
            return Long.MAX_VALUE;
        }
        if (horizon.latest() < lease.end()) {
            long max = stores.table().maxId(task);
            horizon.saw(clock.nanos(), max);
        }
        return horizon.settled(clock.nanos());
    }

    /** Logs, at most once per {@link #LATE_LOG_INTERVAL}, rows that committed after a higher id was read. */
    private void late(RangeLease lease, List<Row> runs) {
        long late = runs.stream().filter(r -> r.id() <= position).count();
        long now = clock.nanos();
        if (late == 0 || (lateLoggedNanos != 0 && now - lateLoggedNanos < LATE_LOG_INTERVAL.toNanos())) {
            return;
        }
        lateLoggedNanos = now;
        log.log(
                Level.INFO,
                "Task " + task.name() + ": range " + lease.start() + "-" + lease.end() + " runs " + late
                        + " rows (first id " + runs.get(0).id() + ") that committed after a higher id was read"
                        + " (a transaction that took its id early and committed late), within scan.tasks."
                        + task.name() + ".follow-grace (" + task.followGrace() + "); an id that commits later"
                        + " than that after a higher one is never run: raise follow-grace if transactions on "
                        + task.definition().table() + " can take longer");
    }

    private void passed(List<Row> rows, UnsettledIds unsettled) {
        for (Row row : rows) {
            unsettled.passed(position, row.id());
            position = Math.max(position, row.id());
        }
    }

    /**
     * Runs a transactional task's unit, each try in a transaction of its own, and commits the range's
     * position past it in the transaction of the try that succeeded, so the handler's statements and the
     * position commit together; a unit that failed every try is recorded failed, the position past it,
     * with none of its tries' statements.
     *
     * @return the rows committed, or {@code -1} when the range was taken over (the unit rolled back)
     */
    private long handleCommitting(
            HeldRange held, List<Row> rows, IntFunction<ScanContext> context, UnsettledIds unsettled) {
        RangeLease lease = held.lease;
        long past = position;
        for (Row row : rows) {
            past = Math.max(past, row.id());
        }
        RangeCommit unit = new RangeCommit(held.run, lease.start(), lease.epoch(), past, rows.size(), List.of(), false);
        RangeHandling.Handled result =
                handling.handle(rows, context, () -> stores.transactions().commit(task.name(), unit));
        if (result.refused()) {
            lost(
                    held,
                    "rolled back the transaction of row " + rows.get(0).id()
                            + (rows.size() > 1 ? " and the " + (rows.size() - 1) + " other rows of its page" : "")
                            + ", which its new owner runs");
            return -1;
        }
        passed(rows, unsettled);
        if (!result.failures().isEmpty()) {
            handled += rows.size();
            failures.addAll(result.failures());
            return commit(held, false);
        }
        lastCommitNanos = clock.nanos();
        committedRows.accept(rows.size());
        return rows.size();
    }

    /** Commits the position; returns the rows it wrote, or {@code -1} when the range was taken over. */
    private long commit(HeldRange held, boolean done) {
        RangeLease lease = held.lease;
        boolean written = stores.ledger()
                .commit(
                        task.name(),
                        new RangeCommit(held.run, lease.start(), lease.epoch(), position, handled, failures, done));
        lastCommitNanos = clock.nanos();
        if (!written) {
            lost(held, "dropped " + handled + " uncommitted rows, which its new owner runs again");
            return -1;
        }
        long count = handled;
        committedRows.accept(count);
        handled = 0;
        failures = new ArrayList<>();
        return count;
    }

    /**
     * A read failed and the range is given up: commits the rows handled before it first, so that they run
     * again only when that commit cannot be written either (a page read cancelled on a locked table, say).
     */
    private void keepHandled(HeldRange held, RuntimeException failure) {
        if (held.lost() || (handled == 0 && failures.isEmpty())) {
            return;
        }
        try {
            commit(held, false);
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    private void lost(HeldRange held, String dropped) {
        RangeLease lease = held.lease;
        held.markLost();
        log.log(
                Level.INFO,
                "Task " + task.name() + ": range " + lease.start() + "-" + lease.end() + " was taken over (epoch "
                        + lease.epoch() + " is stale); " + dropped);
    }
}
