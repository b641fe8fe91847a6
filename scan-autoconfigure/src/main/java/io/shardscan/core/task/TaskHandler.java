package io.shardscan.core.task;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The user's code for a task. Called from the task's worker threads; one lane's rows are handed
 * over in id order on one thread, other lanes run at the same time.
 */
public sealed interface TaskHandler permits TaskHandler.PerRow, TaskHandler.Batch {

    /** A handler called once per row. */
    @FunctionalInterface
    non-sealed interface PerRow extends TaskHandler {

        /**
         * Handles one row.
         *
         * @return the outcome, or {@code null} for done
         * @throws Exception to fail the row; the message becomes its last error
         */
        @Nullable
        Outcome handle(Row row, ScanContext context) throws Exception;
    }

    /** A handler called once per lane with all of its rows; they share one outcome. */
    @FunctionalInterface
    non-sealed interface Batch extends TaskHandler {

        /**
         * Handles the rows of one lane.
         *
         * @return the outcome of every row, or {@code null} for done
         * @throws Exception to fail every row of the lane
         */
        @Nullable
        Outcome handle(List<Row> rows, ScanContext context) throws Exception;
    }
}
