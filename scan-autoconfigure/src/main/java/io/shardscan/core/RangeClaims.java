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

    RangeClaims(RangeTask task, RangeStores stores, EngineSettings settings, ScanClock clock, BooleanSupplier running) {
        this.task = task;
        this.stores = stores;
        this.settings = settings;
        this.clock = clock;
        this.running = running;
    }

    /** A range whose owner died or stalled, else the next one from the cursor; empty when none is left for now. */
    Optional<RangeLease> acquire(TaskRun current) {
        RunRange ids = RangeRunner.range(current);
        List<RangeLease> taken = stores.ledger()
                .takeOver(task.name(), current.id(), settings.nodeId(), settings.leaseTtl(), task.stallTimeout(), 1);
        if (!taken.isEmpty()) {
            RangeLease lease = taken.get(0);
            log.log(
                    Level.INFO,
                    "Task " + task.name() + ": took over range " + lease.start() + "-" + lease.end() + " at position "
                            + lease.position() + " with epoch " + lease.epoch());
            return Optional.of(lease);
        }
        long limit = task.run() == RunMode.ONCE ? ids.highId() : stores.table().maxId(task);
        while (running.getAsBoolean()) {
            if (ids.lowId() + stores.cursor().peek(task.name(), current.id()) > limit) {
                return Optional.empty();
            }
            long start = ids.lowId() + stores.cursor().claim(task.name(), current.id(), ids.rangeSize());
            if (task.run() == RunMode.ONCE && start > ids.highId()) {
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
