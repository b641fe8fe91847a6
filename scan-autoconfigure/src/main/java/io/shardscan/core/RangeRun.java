package io.shardscan.core;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * One run of a range task: its id, the ids it covers and whether it ended. Immutable.
 *
 * @param id the run's number, 1 for a task's first run, one more for each restart
 * @param lowId the lowest id when the run started; ranges start here
 * @param highId the highest id when the run started (a {@link RunMode#ONCE} run ends past it);
 *     {@code lowId - 1} when the table was empty
 * @param done whether the run ended
 * @param startedAt when it started, by the store's clock
 * @param endedAt when it ended; {@code null} while it runs
 */
public record RangeRun(
        long id,
        long lowId,
        long highId,
        boolean done,
        Instant startedAt,
        @Nullable Instant endedAt) {

    /**
     * The same run as the run lifecycle of status tasks describes runs: processed and failed rows
     * from {@code progress}, none dead (a range task records failures instead).
     */
    public TaskRun toTaskRun(RangeProgress progress) {
        return new TaskRun(
                id,
                done ? TaskRun.State.DONE : TaskRun.State.RUNNING,
                startedAt,
                "",
                endedAt,
                null,
                new RunCounts(progress.processed(), progress.failed(), 0));
    }

    /** How many ids lie between the run's lowest and highest id, gaps included. */
    public long span() {
        return Math.max(0, highId - lowId + 1);
    }
}
