package io.shardscan.core;

import io.shardscan.core.spi.TaskRun;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.RunRange;
import java.util.ArrayList;
import java.util.List;

/**
 * What of this node's configuration a range run it joins does not follow: the run keeps the range size
 * it started with (every node must cut the same ranges, or they overlap), and a run started on one
 * cursor goes on safely on another (the new cursor walks past the ranges already opened, which the
 * ledger refuses). Stateless.
 */
final class RunRangeDrift {

    private RunRangeDrift() {}

    /**
     * The warnings for a node configured with {@code task} and claiming from a {@code cursorKind}
     * cursor that joins {@code run}.
     *
     * @return one line per difference, each naming the run's value and the configured one; empty for a
     *     done run or one that matches
     */
    static List<String> warnings(RangeTask task, TaskRun run, String cursorKind) {
        RunRange range = run.range();
        List<String> warnings = new ArrayList<>();
        if (range == null || run.done()) {
            return warnings;
        }
        if (range.rangeSize() != task.rangeSize()) {
            String next = task.run() == RunMode.ONCE
                    ? "applies from the next run (ScanTasks.start(\"" + task.name() + "\") or the actuator's start"
                            + " action once this one is DONE)"
                    : "does not apply: a follow run never ends, so it keeps its range size";
            warnings.add("Task " + task.name() + ": run " + run.id() + " keeps its range size of " + range.rangeSize()
                    + " ids, fixed when it started, so that every node cuts the same ranges; the configured"
                    + " scan.tasks." + task.name() + ".range-size of " + task.rangeSize() + " " + next);
        }
        if (!range.cursor().equals(cursorKind)) {
            warnings.add("Task " + task.name() + ": run " + run.id() + " started on the " + range.cursor()
                    + " cursor and this node claims from the " + cursorKind + " cursor; the run goes on safely: the "
                    + cursorKind + " cursor starts over from the run's first range and skips each range already"
                    + " opened (one refused claim each), so no row runs twice");
        }
        return warnings;
    }
}
