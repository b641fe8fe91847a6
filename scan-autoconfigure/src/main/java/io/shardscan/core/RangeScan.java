package io.shardscan.core;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Scans one held range in id order, page by page, from its committed position: runs each row,
 * commits the position (with the rows handled and those that failed) after each page and at least
 * every commit interval, and marks the range done at its end. A commit the ledger refuses (a newer
 * epoch took the range) ends the scan at once; so does the heartbeat finding the range lost. Redo
 * after a takeover is at most the rows handled since the last commit. Each commit reports its rows at
 * once (a follow task's tail range never ends). One instance per worker thread.
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

    private long position;
    private long handled;
    private List<RangeFailure> failures = new ArrayList<>();
    private long lastCommitNanos;

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
            java.util.function.LongConsumer committedRows) {
        this.task = task;
        this.stores = stores;
        this.handling = handling;
        this.clock = clock;
        this.node = node;
        this.running = running;
        this.idle = idle;
        this.committedRows = committedRows;
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
        long committed = 0;
        int pageSize = task.definition().pageSize();
        while (running.getAsBoolean() && !held.lost()) {
            List<Row> page = stores.table().page(task, position, lease.end(), pageSize);
            for (int from = 0; from < page.size(); ) {
                if (!running.getAsBoolean() || held.lost()) {
                    break;
                }
                int to = handling.batch() ? page.size() : from + 1;
                List<Row> rows = page.subList(from, to);
                failures.addAll(handling.handle(
                        rows, attempt -> new ScanContext(task.name(), node, index, lease.epoch(), attempt)));
                position = rows.get(rows.size() - 1).id();
                handled += rows.size();
                from = to;
                if (clock.nanos() - lastCommitNanos
                        >= task.definition().commitInterval().toNanos()) {
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
            boolean done = last && (task.run() == RunMode.ONCE || stores.table().maxId(task) >= lease.end());
            long written = commit(held, done);
            if (written < 0) {
                return committed;
            }
            committed += written;
            if (done || !running.getAsBoolean()) {
                return committed;
            }
            if (last) {
                // a tail range of a following task: no new id yet
                idle.pause(task.idleInterval());
            }
        }
        if (!held.lost() && (handled > 0 || !failures.isEmpty())) {
            long written = commit(held, false);
            committed += Math.max(0, written);
        }
        return committed;
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
            held.markLost();
            log.log(
                    Level.INFO,
                    "Task " + task.name() + ": range " + lease.start() + "-" + lease.end() + " was taken over (epoch "
                            + lease.epoch() + " is stale); dropped " + handled
                            + " uncommitted rows, which its new owner runs again");
            return -1;
        }
        long count = handled;
        committedRows.accept(count);
        handled = 0;
        failures = new ArrayList<>();
        return count;
    }
}
