package io.shardscan.core;

import java.lang.System.Logger.Level;

/**
 * Tells, with a warning, when this node is configured otherwise than the range run it joins: the run
 * keeps the range size it started with (every node must cut the same ranges, or they overlap), and a
 * run started on one cursor goes on on another safely (the new cursor walks past the ranges already
 * opened, which the ledger refuses). Stateless.
 */
final class RunRangeDrift {

    private static final System.Logger log = ScanLogging.getLogger(RunRangeDrift.class);

    private RunRangeDrift() {}

    /** Logs what of the configuration a running {@code run} does not follow; nothing for a done run. */
    static void warn(RangeTask task, TaskRun run, String cursorKind) {
        RunRange range = run.range();
        if (range == null || run.done()) {
            return;
        }
        String next = task.run() == RunMode.ONCE
                ? "the next run (ScanTasks.start(\"" + task.name() + "\") or the actuator's start action once this"
                        + " one is DONE)"
                : "no run of this task: a follow run never ends, so it keeps its size for good";
        if (range.rangeSize() != task.rangeSize()) {
            log.log(
                    Level.WARNING,
                    "Task " + task.name() + ": run " + run.id() + " keeps its range size of " + range.rangeSize()
                            + " ids, fixed when it started, so that every node cuts the same ranges;"
                            + " scan.tasks." + task.name() + ".range-size (" + task.rangeSize() + ") applies from "
                            + next);
        }
        if (!range.cursor().equals(cursorKind)) {
            log.log(
                    Level.WARNING,
                    "Task " + task.name() + ": run " + run.id() + " started on the " + range.cursor()
                            + " cursor and this node claims from the " + cursorKind + " cursor; it goes on safely:"
                            + " the " + cursorKind + " cursor starts from the run's first range and skips each range"
                            + " already opened (one refused claim each), so no row runs twice");
        }
    }
}
