package io.shardscan.actuate;

import io.shardscan.core.spi.TaskRun;
import io.shardscan.core.task.RunMode;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * The current run of a task that keeps runs ({@code scan.tasks.<name>.run} other than forever), as
 * this node read it at its last lease tick, with the counts of every node. Immutable.
 *
 * @param mode how long a run lasts, as configured, e.g. {@code until-empty}
 * @param id the run id: 1 for the first run, one more for each run started after it
 * @param state {@code RUNNING} or {@code DONE}
 * @param startedAt when it started
 * @param startedBy the node that started it
 * @param endedAt when it ended, {@code null} while it runs
 * @param endedBy the node that recorded its end, {@code null} while it runs
 * @param processed rows it marked done, on every node
 * @param failed failed attempts written back that left the row pending for a retry
 * @param dead rows it marked dead
 * @param durationSeconds how long it ran: until its end, or until now while it runs
 */
public record RunDescriptor(
        String mode,
        long id,
        TaskRun.State state,
        Instant startedAt,
        String startedBy,
        @Nullable Instant endedAt,
        @Nullable String endedBy,
        long processed,
        long failed,
        long dead,
        double durationSeconds) {

    /** Describes {@code run}; {@code null} when there is none (a task that runs forever, or before the first tick). */
    static @Nullable RunDescriptor of(RunMode mode, @Nullable TaskRun run, Duration duration) {
        if (run == null) {
            return null;
        }
        return new RunDescriptor(
                mode.property(),
                run.id(),
                run.state(),
                run.startedAt(),
                run.startedBy(),
                run.endedAt(),
                run.endedBy(),
                run.counts().processed(),
                run.counts().failed(),
                run.counts().dead(),
                duration.toMillis() / 1000.0);
    }
}
