package io.shardscan.core.spi;

import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.RunRange;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One run of a task, shared by every node through {@link TaskRuns}: from its start (the first start of
 * the task, {@code ScanTasks.start} or the actuator's {@code start} action) until it ends. A run of a
 * task that {@linkplain RunMode#ends() ends} moves {@link State#RUNNING} → {@link State#DONE} once,
 * recorded by one node; a {@code DONE} run stays done, through restarts, until a new run starts with
 * the next id. Immutable: a snapshot as last read.
 *
 * @param id the run id: 1 for the first run of the task, one more for each run started after it; 0 for
 *     the run a scheduled task gets before its first firing ({@link TaskRuns#firstSeen}), done, in which
 *     nothing ran
 * @param state running or done
 * @param startedAt when it started
 * @param startedBy the node that started it
 * @param endedAt when it ended; {@code null} while it runs
 * @param endedBy the node that recorded its end; {@code null} while it runs
 * @param counts what it did: final once done, as recorded by the node that ended it; while it runs,
 *     as counted when this snapshot was read
 * @param range for a run of a range task: the ids it covers and its range size, fixed when it
 *     started; {@code null} for a run of a status-column task
 */
public record TaskRun(
        long id,
        State state,
        Instant startedAt,
        String startedBy,
        @Nullable Instant endedAt,
        @Nullable String endedBy,
        RunCounts counts,
        @Nullable RunRange range) {

    /** A run of a status-column task, which covers no id range. */
    public TaskRun(
            long id,
            State state,
            Instant startedAt,
            String startedBy,
            @Nullable Instant endedAt,
            @Nullable String endedBy,
            RunCounts counts) {
        this(id, state, startedAt, startedBy, endedAt, endedBy, counts, null);
    }

    public TaskRun {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(startedAt, "startedAt");
        Objects.requireNonNull(startedBy, "startedBy");
        Objects.requireNonNull(counts, "counts");
    }

    /** Where a run is in its life. */
    public enum State {
        /** Rows are being processed. */
        RUNNING,
        /** Ended: nothing is left; no round starts until a new run starts. */
        DONE
    }

    /** Whether it has ended. */
    public boolean done() {
        return state == State.DONE;
    }

    /** How long it ran: until its end, or until {@code now} while it runs. */
    public Duration duration(Instant now) {
        Instant until = endedAt != null ? endedAt : now;
        return until.isBefore(startedAt) ? Duration.ZERO : Duration.between(startedAt, until);
    }

    /** The same run with other counts, as read while it runs. */
    public TaskRun withCounts(RunCounts counts) {
        return new TaskRun(id, state, startedAt, startedBy, endedAt, endedBy, counts, range);
    }
}
