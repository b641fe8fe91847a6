package io.shardscan.core;

import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.task.Match;
import io.shardscan.core.task.TaskDefinition;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Warns about pending rows that no task fetches because every task on their table has a
 * {@code match} and none selects them: such rows sit pending forever, and nothing else shows them.
 * Counted once at startup, per table and status column whose tasks all match and checked clean.
 */
final class UnmatchedRows {

    private static final System.Logger log = ScanLogging.getLogger(UnmatchedRows.class);

    private UnmatchedRows() {}

    /**
     * Counts and logs the unmatched pending rows of each such group of tasks.
     *
     * @param contexts every task of the engine
     * @param clean the names of the tasks whose table checked without problems
     */
    static void warn(List<TaskContext> contexts, Set<String> clean) {
        List<TaskContext> left = new ArrayList<>(contexts);
        while (!left.isEmpty()) {
            TaskDefinition first = left.get(0).definition();
            List<TaskContext> group = left.stream()
                    .filter(c -> TaskOverlap.samePendingRows(first, c.definition()))
                    .toList();
            left.removeAll(group);
            List<TaskDefinition> tasks =
                    group.stream().map(TaskContext::definition).toList();
            if (tasks.stream().allMatch(t -> !t.match().isEmpty() && clean.contains(t.name()))) {
                warn(group.get(0).store(), tasks);
            }
        }
    }

    private static void warn(TaskStore store, List<TaskDefinition> tasks) {
        String names = String.join(
                ", ", tasks.stream().map(t -> "scan.tasks." + t.name()).toList());
        long unmatched;
        try {
            unmatched = store.admin().countUnmatched(tasks);
        } catch (RuntimeException e) {
            log.log(Level.WARNING, names + ": could not count the pending rows no task's match selects", e);
            return;
        }
        if (unmatched <= 0) {
            return;
        }
        String matches = String.join(
                "; ",
                tasks.stream()
                        .map(t -> t.name() + ": "
                                + String.join(
                                        " AND ",
                                        t.match().stream().map(Match::describe).toList()))
                        .toList());
        log.log(
                Level.WARNING,
                names + ": " + unmatched + " pending rows of " + tasks.get(0).table() + " meet none of these tasks'"
                        + " matches (" + matches + "), so no task ever fetches them. Widen a match or add a task"
                        + " whose match takes them, or, if they are not meant to run, give them another status than"
                        + " the pending " + tasks.get(0).statuses().pending());
    }
}
