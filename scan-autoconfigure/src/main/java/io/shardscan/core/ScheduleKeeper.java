package io.shardscan.core;

import io.shardscan.core.spi.Firing;
import io.shardscan.core.spi.TaskRun;
import io.shardscan.core.spi.TaskRuns;
import io.shardscan.core.task.RunRange;
import io.shardscan.core.task.Schedule;
import io.shardscan.core.task.TaskDefinition;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A task's schedule on this node: at each tick, when a firing is due, hands it to
 * {@link TaskRuns#fire}, which starts the task's next run (or records the firing skipped while the run
 * still runs) on exactly one node. Every node ticks the same schedule against the one firing record of the
 * task, so nothing here is this node's alone:
 *
 * <ul>
 *   <li><b>First sight.</b> The first tick makes the record ({@link TaskRuns#firstSeen}): no firing before
 *       then starts a run, and a task that never ran gets run 0, done, so that its first run starts at its
 *       first firing rather than at a deploy.
 *   <li><b>Misfires run once.</b> A firing is due when this node's clock has reached the schedule's first
 *       firing after the record; the record then moves to the tick's time, so the firings missed while no
 *       node ran the task collapse into one run at the first tick after a start.
 *   <li><b>Overlap is skipped.</b> A firing that finds the run still running starts nothing; the next one
 *       starts the next run if the run has ended by then.
 * </ul>
 *
 * Between firings a tick runs no statement: the record is read when this node makes it, and again with
 * each firing it hands on ({@link TaskRuns#fire} returns the record, another node's when it was first).
 * Times are this node's clock ({@link ScanClock}) in whole milliseconds, as stored. Thread-safe:
 * {@link #tick} runs on one thread (the lease tick, or a range task's control thread), {@link #status}
 * on any.
 */
final class ScheduleKeeper {

    private static final System.Logger log = ScanLogging.getLogger(ScheduleKeeper.class);

    /** A firing handled later than this after it was due is logged as late: no node ran the task then. */
    private static final Duration LATE = Duration.ofMinutes(1);

    private final TaskDefinition task;
    private final Schedule schedule;
    private final String node;
    private final ScanClock clock;
    private final Supplier<@Nullable RunRange> firstRange;
    private final Supplier<@Nullable RunRange> nextRange;
    private final AtomicLong started = new AtomicLong();
    private final AtomicLong skipped = new AtomicLong();
    private volatile @Nullable Firing last;

    /**
     * @param firstRange the ids of run 0 ({@code null} for a status-column task)
     * @param nextRange the ids of a run starting now, read when a firing is due ({@code null} for a
     *     status-column task)
     */
    ScheduleKeeper(
            TaskDefinition task,
            Schedule schedule,
            String node,
            ScanClock clock,
            Supplier<@Nullable RunRange> firstRange,
            Supplier<@Nullable RunRange> nextRange) {
        this.task = task;
        this.schedule = schedule;
        this.node = node;
        this.clock = clock;
        this.firstRange = firstRange;
        this.nextRange = nextRange;
    }

    /**
     * One tick: makes the record at the first, and hands on the firing due, if any.
     *
     * @param current the task's run as this node last read it, for the log line of a skipped firing
     * @return whether a firing started a run (on this node or, first, on another): read the current run
     */
    boolean tick(TaskRuns runs, @Nullable TaskRun current) {
        Instant now = clock.now().truncatedTo(ChronoUnit.MILLIS);
        Firing known = last;
        if (known == null) {
            Firing seen = runs.firstSeen(task, node, now, firstRange.get());
            last = seen;
            log.log(Level.INFO, firstLine(seen, now));
            return false;
        }
        Instant due = schedule.next(known.at());
        if (due == null || due.isAfter(now)) {
            return false;
        }
        Firing fired = runs.fire(task, due, node, now, nextRange.get());
        last = fired;
        if (!fired.isBy(node, now)) {
            // another node handled this firing first; its record is ours now
            return fired.kind() == Firing.Kind.STARTED;
        }
        if (fired.kind() == Firing.Kind.STARTED) {
            started.incrementAndGet();
            log.log(
                    Level.INFO,
                    "Task " + task.name() + ": the firing of " + due + " (" + schedule.describe()
                            + ") starts its next run on node " + node + late(due, now) + "; next firing at "
                            + next(now));
            return true;
        }
        skipped.incrementAndGet();
        log.log(
                Level.INFO,
                "Task " + task.name() + ": the firing of " + due + " (" + schedule.describe() + ") is skipped: "
                        + (current == null
                                ? "its run"
                                : "run " + current.id() + " (started " + current.startedAt() + " by node "
                                        + current.startedBy() + ")")
                        + " still runs; next firing at " + next(now));
        return false;
    }

    /** The schedule, its next firing and its last record as this node knows them; no statement. */
    ScheduleStatus status() {
        Firing known = last;
        return new ScheduleStatus(
                schedule.describe(),
                schedule.next(known == null ? clock.now() : known.at()),
                known,
                started.get(),
                skipped.get());
    }

    private String firstLine(Firing seen, Instant now) {
        String name = task.name();
        if (seen.kind() == Firing.Kind.SEEN && seen.isBy(node, now)) {
            return "Task " + name + ": schedule " + schedule.describe() + " first seen; no run starts before its"
                    + " first firing, at " + next(now);
        }
        return "Task " + name + ": schedule " + schedule.describe() + ", next firing at " + next(seen.at())
                + " (last record: " + seen.kind().name().toLowerCase(java.util.Locale.ROOT) + " at " + seen.at()
                + " by node " + seen.by() + ")";
    }

    private String next(Instant after) {
        Instant next = schedule.next(after);
        return next == null ? "none: the schedule does not fire again" : next.toString();
    }

    /** Why a firing runs late, when it does: every node was down, and any firings after it run in this one run. */
    private String late(Instant due, Instant now) {
        Instant after = schedule.next(due);
        boolean collapsed = after != null && !after.isAfter(now);
        if (!collapsed && Duration.between(due, now).compareTo(LATE) <= 0) {
            return "";
        }
        return ", late: it was due while no node ran the task"
                + (collapsed ? ", and the firings missed since run once, in this run" : "");
    }
}
