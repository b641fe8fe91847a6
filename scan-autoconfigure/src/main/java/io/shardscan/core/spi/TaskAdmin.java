package io.shardscan.core.spi;

import io.shardscan.core.task.Row;
import io.shardscan.core.task.TaskDefinition;
import java.util.List;
import java.util.Map;

/**
 * The operator's side of a {@link TaskStore}: what screens, endpoints and startup counts ask, never a
 * round. A task's rows are the rows of its table that its {@link TaskDefinition#match() match} selects,
 * as in the store. Implementations are thread-safe.
 */
public interface TaskAdmin {

    /**
     * Counts the task's pending rows by retry count, with the oldest last update of each group and
     * (for a task with a due-at column) how many of them are not due yet, how many have a NULL due
     * time, the earliest due-at value of those that are due, and how many have a NULL updated-at;
     * its pending rows whose retry count is NULL apart, in no group; its dead rows, and its pending
     * rows whose shard key is NULL, with queries that read the pending-row index rather than the whole
     * table; and the store's clock at the count, which the groups' ages are measured against.
     *
     * @return the counts; empty groups when nothing is pending
     */
    BacklogCounts countBacklog(TaskDefinition task);

    /**
     * {@link #countBacklog} of each of the task's tables, by table name in table order: for a sharded task
     * ({@link TaskDefinition#tables()}) one count per table; the default, the task's one table.
     *
     * @return the counts by table; never empty
     */
    default Map<String, BacklogCounts> countBacklogByTable(TaskDefinition task) {
        return Map.of(task.table(), countBacklog(task));
    }

    /**
     * {@link #countBacklog} of several tables of this store's data: each of {@code tables} is a part
     * ({@link TaskDefinition#part}) of a sharded task, so that the backlog of every table of one data source
     * is counted with a few statements, not one per table. Counts are the same as {@link #countBacklog}'s.
     *
     * <p>The default counts each table apart, one {@link #countBacklog} per table.
     *
     * @return the counts, one per table in the order of {@code tables}; empty when {@code tables} is
     */
    default List<BacklogCounts> countBacklogs(List<TaskDefinition> tables) {
        return tables.stream().map(this::countBacklog).toList();
    }

    /**
     * Counts the pending rows of the tasks' table that none of their matches selects, which no task
     * ever fetches: one count over the pending rows, at startup. The tasks share one table, status
     * column and pending value, each has a {@link TaskDefinition#match() match}, and each was
     * {@link TaskStore#inspect inspected} without problems.
     *
     * @return the count; {@code -1} when this store does not count them
     */
    default long countUnmatched(List<TaskDefinition> tasks) {
        return -1;
    }

    /**
     * Puts every dead row back to pending with retry count 0, last updated now by the store's clock.
     *
     * @return how many rows were requeued
     */
    int requeueDead(TaskDefinition task);

    /**
     * One page of the task's dead rows ({@code dead}) or of its pending rows that failed before (retry
     * count above 0), grouped by last error, the largest groups first: one grouping query for the page
     * and one small query per group for its example ids, on demand (a screen, not a round).
     *
     * @param page the page, from 0
     * @param size the groups per page
     * @param examples the most example ids per group
     * @return the groups, empty past the last page
     * @throws UnsupportedOperationException when this store cannot group failures
     */
    default List<FailureGroup> failureGroups(TaskDefinition task, boolean dead, int page, int size, int examples) {
        throw new UnsupportedOperationException("this task store cannot group failed rows");
    }

    /**
     * Puts the rows {@code which} selects back to pending with retry count 0, last updated now by the
     * store's clock: due at once, in the tier of fresh rows. A row no longer in the selected state is left alone.
     * Its ids are as {@link Row#idValue()} gives them: {@code Long}s, or the text of text or UUID ids.
     *
     * @return how many rows were requeued
     * @throws UnsupportedOperationException when this store cannot requeue selected rows
     */
    default int requeue(TaskDefinition task, Requeue which) {
        throw new UnsupportedOperationException("this task store cannot requeue selected rows");
    }

    /**
     * One of the task's rows with every column, read now: for an operator who looks at a failed row.
     * A timestamp column is a {@code java.time.OffsetDateTime} when it holds instants (timestamptz,
     * {@code TIMESTAMP WITH TIME ZONE}) and for a zone-less updated-at column, which the engine stamps in
     * UTC (at offset 0); a {@code java.time.LocalDateTime} as stored for every other zone-less one,
     * whose zone the table does not say.
     *
     * @param id the row's id as {@link Row#idValue()} gives it: a {@code Long}, or the text of a text or UUID id
     * @return the columns by name as the store spells them, in table order; {@code null} when the task
     *     has no row with that id
     * @throws UnsupportedOperationException when this store cannot read single rows
     */
    default @org.jspecify.annotations.Nullable Map<String, Object> readRow(TaskDefinition task, Object id) {
        throw new UnsupportedOperationException("this task store cannot read single rows");
    }
}
