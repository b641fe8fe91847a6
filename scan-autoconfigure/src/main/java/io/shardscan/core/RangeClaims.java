package io.shardscan.core;

import io.shardscan.core.spi.RangeLease;
import io.shardscan.core.spi.RangeProgress;
import io.shardscan.core.spi.RangeStores;
import io.shardscan.core.spi.RunCounts;
import io.shardscan.core.spi.TaskRun;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.RunRange;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Which range a worker of a range task scans next, and the end of a {@link RunMode#ONCE} run: a range
 * whose owner died or stalled is taken over first, else the next one is claimed from the run's cursor
 * and opened in the ledger, cut with the run's own range size; once the cursor is past the run's ids,
 * a range claimed but never opened is opened for takeover, and the run ends when every range is done.
 * Thread-safe: every worker of the task shares one.
 */
final class RangeClaims {

    private static final System.Logger log = ScanLogging.getLogger(RangeClaims.class);

    private final RangeTask task;
    private final RangeStores stores;
    private final EngineSettings settings;
    private final ScanClock clock;
    private final BooleanSupplier running;
    /** When a worker first saw fewer ranges than the cursor handed out; 0 when none is missing. */
    private volatile long holeSeenNanos;
    /** The once run whose cursor a claim found past its ids; -1 before. */
    private volatile long exhaustedRun = -1;
    /** When a worker last asked the ledger for ranges to take over. */
    private volatile long takeOversAskedNanos;

    RangeClaims(RangeTask task, RangeStores stores, EngineSettings settings, ScanClock clock, BooleanSupplier running) {
        this.task = task;
        this.stores = stores;
        this.settings = settings;
        this.clock = clock;
        this.running = running;
        this.takeOversAskedNanos = clock.nanos() - settings.renewInterval().toNanos();
    }

    /**
     * A range whose owner died or stalled, else the next one from the cursor; empty when none is left for
     * now. The ledger is asked for ranges to take over at most once per renew interval while the cursor
     * still hands out ranges (a range is taken over only a lease TTL after its owner's last heartbeat, so
     * asking before every range of a few milliseconds found none: a statement per range), and always
     * once the cursor has none left.
     */
    Optional<RangeLease> acquire(TaskRun current) {
        boolean asked = false;
        if (clock.nanos() - takeOversAskedNanos >= settings.renewInterval().toNanos()) {
            asked = true;
            Optional<RangeLease> taken = takeOver(current);
            if (taken.isPresent()) {
                return taken;
            }
        }
        Optional<RangeLease> claimed = claim(current);
        return claimed.isPresent() || asked ? claimed : takeOver(current);
    }

    private Optional<RangeLease> takeOver(TaskRun current) {
        takeOversAskedNanos = clock.nanos();
        List<RangeLease> taken = stores.ledger()
                .takeOver(task.name(), current.id(), settings.nodeId(), settings.leaseTtl(), task.stallTimeout(), 1);
        if (taken.isEmpty()) {
            return Optional.empty();
        }
        RangeLease lease = taken.get(0);
        log.log(
                Level.INFO,
                "Task " + task.name() + ": took over range " + lease.start() + "-" + lease.end() + " at position "
                        + lease.position() + " with epoch " + lease.epoch());
        return Optional.of(lease);
    }

    /** The next range from the cursor, opened in the ledger; empty when the cursor is past the ids there are. */
    private Optional<RangeLease> claim(TaskRun current) {
        RunRange ids = RangeRunner.range(current);
        boolean once = task.run() == RunMode.ONCE;
        if (once && exhaustedRun == current.id()) {
            // a once run's cursor only moves on: past its ids once, it has no range left, and is not moved again
            return Optional.empty();
        }
        long limit = once ? ids.highId() : stores.table().maxId(task);
        while (running.getAsBoolean()) {
            // a once run's ids are known: a claim past them is refused below, without a read of the cursor
            // before each claim; a following run's cursor must not run ahead of the table's ids
            if (!once && ids.lowId() + stores.cursor().peek(task.name(), current.id()) > limit) {
                return Optional.empty();
            }
            long start = ids.lowId() + stores.cursor().claim(task.name(), current.id(), ids.rangeSize());
            if (once && start > ids.highId()) {
                exhaustedRun = current.id();
                return Optional.empty();
            }
            Optional<RangeLease> opened =
                    stores.ledger().open(task.name(), current.id(), start, end(ids, start), settings.nodeId());
            if (opened.isPresent()) {
                return opened;
            }
        }
        return Optional.empty();
    }

    private long end(RunRange ids, long start) {
        long end = start + ids.rangeSize() - 1;
        return task.run() == RunMode.ONCE ? Math.min(end, ids.highId()) : end;
    }

    /**
     * With the cursor past the run's ids: opens any range that was claimed but never opened (its
     * claimer died in between), and ends a {@link RunMode#ONCE} run once every range is done,
     * retiring its cursor.
     *
     * @return the run's final progress when this call ended it; {@code null} otherwise
     */
    @Nullable
    RangeProgress finishIfCovered(TaskRun current) {
        RunRange ids = RangeRunner.range(current);
        long claimed = stores.cursor().peek(task.name(), current.id());
        long expected = task.run() == RunMode.ONCE ? ids.rangeCount() : claimed / ids.rangeSize();
        RangeProgress progress = stores.progress(task.name(), current.id());
        if (progress.ranges() < expected) {
            // a claimer opens its range a moment after its claim: sweep only for a hole that lasted a lease TTL
            long now = clock.nanos();
            long seen = holeSeenNanos;
            if (seen == 0) {
                holeSeenNanos = now;
                return null;
            }
            if (now - seen < settings.leaseTtl().toNanos()) {
                return null;
            }
            holeSeenNanos = 0;
            List<Long> reopened = new ArrayList<>();
            for (long i = 0; i < expected && running.getAsBoolean(); i++) {
                long start = ids.lowId() + i * ids.rangeSize();
                // open() refuses ranges that exist; the sweep opens the ones nobody holds, and leaves them
                // for takeover: a heartbeat of epoch 1 from here would make this node their owner
                stores.ledger()
                        .open(task.name(), current.id(), start, end(ids, start), "")
                        .ifPresent(lease -> reopened.add(lease.start()));
            }
            if (!reopened.isEmpty()) {
                log.log(
                        Level.WARNING,
                        "Task " + task.name() + ": opened ranges " + reopened + ", claimed from the cursor but never"
                                + " opened (their claimer stopped in between); they are taken over after "
                                + settings.leaseTtl());
            }
            return null;
        }
        holeSeenNanos = 0;
        if (task.run() == RunMode.ONCE
                && progress.rangesDone() >= expected
                && ids.lowId() + claimed > ids.highId()
                && stores.runs()
                        .finish(
                                task.definition(),
                                current.id(),
                                new RunCounts(progress.processed(), progress.failed(), 0),
                                settings.nodeId(),
                                clock.now())) {
            stores.cursor().retire(task.name(), current.id());
            return progress;
        }
        return null;
    }
}
