package io.shardscan.actuate;

import io.shardscan.core.RangeView;
import io.shardscan.core.TaskView;
import io.shardscan.core.spi.RangeFailure;
import io.shardscan.core.spi.RangeSnapshot;
import io.shardscan.core.task.RunRange;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * One range task ({@code mode: range}) as this node sees it: its current run and how far it got, as the
 * control thread last read it. Immutable.
 *
 * @param mode always {@code range}
 * @param run {@code once} or {@code follow}
 * @param state {@code RUNNING}, or {@code DONE} once a {@code once} run covered its ids
 * @param runId the current run's id
 * @param lowId the run's lowest id when it started
 * @param highId the run's highest id when it started ({@code once} ends past it)
 * @param startedAt when the run started
 * @param endedAt when it ended; {@code null} while it runs
 * @param rangeSize ids per range, as the run fixed it when it started
 * @param ranges ranges opened so far
 * @param rangesDone ranges finished
 * @param processed rows handled and committed by every node, failed ones included, each once
 * @param failed rows recorded as failed in this run (requeued ones included)
 * @param percent the share of the id space behind committed positions, 0–100
 * @param rowsPerSecond rows committed per second over the last 10 s, every node together
 * @param etaSeconds the rest of the id space at that pace; {@code null} when done or unknown
 * @param handledHere rows this node handled and committed since it started
 * @param failures the failures now recorded: a count and the most recent ones; {@code null} in the overview
 * @param schedule the task's schedule, its next and its last firing; {@code null} for a task without one
 */
public record RangeTaskDescriptor(
        String mode,
        String run,
        TaskView.State state,
        long runId,
        long lowId,
        long highId,
        Instant startedAt,
        @Nullable Instant endedAt,
        long rangeSize,
        long ranges,
        long rangesDone,
        long processed,
        long failed,
        double percent,
        double rowsPerSecond,
        @Nullable Long etaSeconds,
        long handledHere,
        @Nullable FailuresDescriptor failures,
        @Nullable ScheduleDescriptor schedule) {

    /** How many recent failures the task's own page lists. */
    static final int RECENT_FAILURES = 10;

    /**
     * The failed rows of the current run.
     *
     * @param count how many there are now
     * @param recent the most recent, newest first, at most {@value #RECENT_FAILURES}
     */
    public record FailuresDescriptor(long count, List<RangeFailure> recent) {}

    /** The task from its last snapshot; with {@code failures}, also its failures (two queries). */
    static RangeTaskDescriptor of(RangeView view, boolean failures) {
        RangeSnapshot s = view.snapshot();
        RunRange ids = s.run().range();
        return new RangeTaskDescriptor(
                "range",
                view.task().run().property(),
                s.run().done() ? TaskView.State.DONE : TaskView.State.RUNNING,
                s.run().id(),
                ids == null ? 0 : ids.lowId(),
                ids == null ? 0 : ids.highId(),
                s.run().startedAt(),
                s.run().endedAt(),
                ids == null ? view.task().rangeSize() : ids.rangeSize(),
                s.progress().ranges(),
                s.progress().rangesDone(),
                s.progress().processed(),
                s.progress().failed(),
                Math.round(s.percent() * 10) / 10.0,
                Math.round(s.rowsPerSecond() * 10) / 10.0,
                s.eta() == null ? null : s.eta().toSeconds(),
                s.handledHere(),
                failures ? new FailuresDescriptor(view.failureCount(), view.recentFailures(RECENT_FAILURES)) : null,
                ScheduleDescriptor.of(view.schedule()));
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%s run %d %s %.1f%%", run, runId, state, percent);
    }
}
