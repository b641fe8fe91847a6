package io.shardscan.core;

import io.shardscan.core.task.Match;
import io.shardscan.core.task.MatchOverlap;
import io.shardscan.core.task.TaskDefinition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Finds tasks that would fetch the same pending rows: two tasks on one table with the same status
 * column and pending value, whose matches leave some row to both. Each such row would run in both
 * tasks' handlers, so that fails startup unless one of them allows it ({@link MatchOverlap#ALLOWED}).
 */
final class TaskOverlap {

    private TaskOverlap() {}

    /**
     * One problem per pair of tasks that share pending rows without either allowing it.
     *
     * @return the problems, each naming both tasks, the rows they share and the fix; empty when none
     */
    static List<String> problems(List<TaskDefinition> tasks) {
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < tasks.size(); i++) {
            for (int j = i + 1; j < tasks.size(); j++) {
                TaskDefinition first = tasks.get(i);
                TaskDefinition second = tasks.get(j);
                if (first.matchOverlap() == MatchOverlap.ALLOWED || second.matchOverlap() == MatchOverlap.ALLOWED) {
                    continue;
                }
                List<Match> shared = shared(first, second);
                if (shared != null) {
                    problems.add(message(first, second, shared));
                }
            }
        }
        return problems;
    }

    /**
     * What a pending row must satisfy to be fetched by both tasks.
     *
     * @return the conditions (empty: every pending row); {@code null} when no row can be both tasks'
     */
    static @Nullable List<Match> shared(TaskDefinition first, TaskDefinition second) {
        if (!samePendingRows(first, second)) {
            return null;
        }
        Map<String, Match> both = new LinkedHashMap<>();
        first.match().forEach(m -> both.put(m.column().toLowerCase(Locale.ROOT), m));
        for (Match match : second.match()) {
            String column = match.column().toLowerCase(Locale.ROOT);
            Match mine = both.get(column);
            if (mine == null) {
                both.put(column, match);
            } else {
                Match common = mine.intersect(match);
                if (common == null) {
                    return null;
                }
                both.put(column, common);
            }
        }
        return List.copyOf(both.values());
    }

    /** Whether two tasks select their rows among the same pending rows: one table, status column and pending value. */
    static boolean samePendingRows(TaskDefinition first, TaskDefinition second) {
        return sameTable(first.table(), second.table())
                && first.columns().status().equalsIgnoreCase(second.columns().status())
                && first.statuses().pending() == second.statuses().pending();
    }

    /** Whether two configured names can name one table: a schema on one side only may be the other's default. */
    private static boolean sameTable(String first, String second) {
        String[] a = first.toLowerCase(Locale.ROOT).split("\\.");
        String[] b = second.toLowerCase(Locale.ROOT).split("\\.");
        if (!a[a.length - 1].equals(b[b.length - 1])) {
            return false;
        }
        return a.length == 1 || b.length == 1 || a[0].equals(b[0]);
    }

    private static String message(TaskDefinition first, TaskDefinition second, List<Match> shared) {
        String rows = shared.isEmpty()
                ? "every pending row of " + first.table()
                : "the pending rows of " + first.table() + " where "
                        + String.join(
                                " AND ", shared.stream().map(Match::describe).toList());
        return selector(first) + " and " + selector(second) + " both select "
                + rows + ", so both tasks would process them: make the matches disjoint (a column both match,"
                + " with no value in common, or null against values, e.g. " + example(first, second, shared)
                + "), or set scan.tasks." + second.name() + ".match-overlap=allowed if both are meant to take these"
                + " rows";
    }

    /** What selects a task's rows: its {@code match}, or the whole table when it has none. */
    private static String selector(TaskDefinition task) {
        return task.match().isEmpty()
                ? "scan.tasks." + task.name() + " (no match: the whole table)"
                : "scan.tasks." + task.name() + ".match";
    }

    // the user's own column: one both tasks match on, else one of the shared rows' conditions
    private static String example(TaskDefinition first, TaskDefinition second, List<Match> shared) {
        String column = first.match().stream()
                .map(Match::column)
                .filter(c -> second.match().stream().anyMatch(m -> m.column().equalsIgnoreCase(c)))
                .findFirst()
                .orElse(shared.isEmpty() ? null : shared.get(0).column());
        if (column == null) {
            return "scan.tasks." + first.name() + ".match.<column>=1 and scan.tasks." + second.name()
                    + ".match.<column>=2, on a column of " + first.table() + " that tells their rows apart";
        }
        return "scan.tasks." + first.name() + ".match." + column + " and scan.tasks." + second.name() + ".match."
                + column + " with no value in common";
    }
}
