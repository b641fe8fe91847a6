package io.shardscan.actuate;

import io.shardscan.core.TaskStats;
import io.shardscan.core.TaskView;
import org.jspecify.annotations.Nullable;

/**
 * A task's share of this node's worker budget ({@code scan.max-workers}). Immutable.
 *
 * @param priority the task's priority: the higher gets free workers first
 * @param maxWait the task's {@code max-wait} as an ISO-8601 duration (e.g. {@code PT30S}): once its
 *     oldest due row waited this long it goes ahead of every priority; {@code null} when unset, never
 * @param workersHeld workers of the budget the task holds now, at most its own {@code workers}
 * @param roundsWaiting rounds of the task that hold no worker yet (fetching, or waiting for the budget)
 * @param longestWaitMillis how long its longest-waiting round has waited so far; 0 when none waits
 * @param roundsServed rounds that got workers of the budget since this node started
 * @param waitedMillis how long those rounds waited for their workers, together
 * @param agedRounds of those, the rounds served ahead of every priority because their oldest row had
 *     been due longer than the task's {@code max-wait}
 */
public record BudgetDescriptor(
        int priority,
        @Nullable String maxWait,
        int workersHeld,
        int roundsWaiting,
        long longestWaitMillis,
        long roundsServed,
        long waitedMillis,
        long agedRounds) {

    static BudgetDescriptor of(TaskView task) {
        TaskStats stats = task.stats();
        return new BudgetDescriptor(
                task.definition().rounds().priority(),
                task.definition().rounds().maxWait() == null
                        ? null
                        : task.definition().rounds().maxWait().toString(),
                task.workersHeld(),
                stats.roundsWaiting(),
                task.longestBudgetWait().toMillis(),
                stats.budgetWaits(),
                stats.budgetWaited().toMillis(),
                stats.agedRounds());
    }
}
