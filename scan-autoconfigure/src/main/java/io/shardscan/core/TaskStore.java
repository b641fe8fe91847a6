package io.shardscan.core;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where a task's rows live. The engine decides what to fetch and what to write; a store only runs
 * those reads and writes against its backend. A task's rows are the rows of its table that its
 * {@link TaskDefinition#match() match} selects: every read, count and requeue below selects only
 * those, so that several tasks can share one table. Implementations are thread-safe: rounds of
 * different shards call them at the same time.
 */
public interface TaskStore {

    /**
     * Inspects the task's table: which configured columns are missing, which are of a type the
     * store cannot use, whether the match's columns exist and its values fit their types, whether the index that keeps {@link #fetch} a range scan over pending rows
     * exists, how many pending rows have a NULL shard key or (for a task with a due-at column) a
     * NULL due time, which no tier fetches for their retry count or updated-at (see
     * {@link UnfetchableRows}; count queries, so called at startup, not per round), the statements
     * that make a nullable retry column NOT NULL DEFAULT 0, and warnings such as a
     * zone-less due-at column in a database whose zone is not the JVM's.
     *
     * @return the report; never {@code null}
     */
    SchemaReport inspect(TaskDefinition task);

    /**
     * This store with each statement it runs bounded by {@code timeout}: the driver or the database
     * cancels one that runs longer, and the call fails with an exception that {@link #timedOut}
     * recognizes. The engine asks once per task, with the bound it chose
     * ({@link EngineSettings#statementTimeout()}), and runs its rounds' statements through the
     * returned store; the application's own statements inside {@link #inTransaction} work are never
     * bounded by it, only the store's.
     *
     * <p>The default returns this store, unbounded.
     *
     * @return a store over the same data whose statements time out; never {@code null}
     */
    default TaskStore boundedBy(java.time.Duration timeout) {
        return this;
    }

    /**
     * Whether {@code failure}, thrown by a store that {@link #boundedBy} returned, means that one of
     * its statements ran past that timeout and was cancelled (and not, say, that the database was
     * down).
     *
     * @return {@code false} by default
     */
    default boolean timedOut(RuntimeException failure) {
        return false;
    }

    /**
     * Reads the next page of due rows of one shard and tier: pending, retry count within
     * {@code request.minRetries()}–{@code request.maxRetries()}, rows with a retry count above 0
     * only when last updated at least {@code request.failedRest()} ago by the store's own clock (when
     * not {@code null}), the clock {@link #writeBack} stamped that update with, id greater than {@code request.afterId()} (for a
     * text or UUID id: {@code request.afterText()}, in binary order, see {@link KeyType#TEXT}), in id order, at most
     * {@code request.limit()} rows. For a task with a due-at column, only rows whose due-at value
     * plus the task's delay has been reached by the store's own clock (never the JVM's, so that
     * nodes with skewed clocks agree), after ({@code request.afterDue()}, {@code afterId}) when a
     * due time is given, in due order, then id order, each with its {@link Row#dueAt()}. A row with a text or
     * UUID id carries its text in {@link Row#textId()}.
     *
     * @return the rows, possibly empty; never {@code null}
     */
    List<Row> fetch(TaskDefinition task, FetchRequest request);

    /**
     * Which requests have a row that {@link #fetch} would return: each request is the first page of
     * one shard's tier, one row; requests may be of several tiers, so one shard may be asked once per
     * tier. Called for the idle tiers of this node's shards (those whose last fetch came back empty),
     * about once per first-tier interval per node, so an implementation should answer with one
     * statement whose cost grows with the number of requests, not with the rows they hold: a probe
     * per request that stops at its first row.
     *
     * <p>The default fetches each request and is correct for any store, at one read per request.
     *
     * @return the positions in {@code requests} (from 0) of those that have such a row, in any order;
     *     empty when none
     */
    default List<Integer> dueRequests(TaskDefinition task, List<FetchRequest> requests) {
        List<Integer> due = new java.util.ArrayList<>();
        for (int position = 0; position < requests.size(); position++) {
            if (!fetch(task, requests.get(position)).isEmpty()) {
                due.add(position);
            }
        }
        return due;
    }

    /**
     * The shard's pending rows that failed before (retry count above 0), in id order: from these
     * a new owner rebuilds which keys wait. For a task with a due-at column each carries its due time.
     *
     * @return the rows' shard keys and ids; empty when none
     */
    List<RowKey> failedRows(TaskDefinition task, int shard);

    /**
     * Issues the shard a new fence epoch for {@code owner}: one statement raises the shard's fence
     * to one above whatever it held (or starts it), whoever wrote it, so the epoch is greater than
     * any earlier owner's whatever coordinator granted the lease. From then on only write-backs
     * under the returned epoch change the shard's rows.
     *
     * @return the new epoch
     */
    long fence(TaskDefinition task, int shard, String owner);

    /**
     * The node that raised the shard's fence last ({@link #fence}'s {@code owner}): after a
     * write-back was refused, who holds the shard now, so a node can tell a member of its own
     * cluster from one of another cluster on the same database.
     *
     * @return the owner; empty when the shard has no fence yet or the store does not record owners
     */
    default Optional<String> fenceOwner(TaskDefinition task, int shard) {
        return Optional.empty();
    }

    /**
     * Applies a round's outcomes in one transaction, only while the shard's fence still holds
     * {@code batch.epoch()}; rows no longer pending are left alone. When {@code batch.run()} is
     * set, the same transaction adds the batch's counts to the shard's counts of that run, which
     * {@link TaskRuns#counted} sums. Error texts longer than the
     * store can keep are cut by the store. Every row written gets its last update from the store's
     * own clock, not from {@code batch.at()}: {@link #fetch} measures a failed row's rest from it, so
     * a row failed on one node and fetched by another rests its tier's interval whatever their
     * clocks say.
     *
     * @return {@code true} when written, {@code false} when a newer epoch fenced the shard and nothing changed
     */
    boolean writeBack(TaskDefinition task, WriteBack batch);

    /**
     * Archives one batch of the shard's finished rows as {@link TaskDefinition#archive()} says: at
     * most {@code batch} done rows (and dead ones when it includes them) of the shard, last updated
     * at least {@code after} ago by the database's clock, read through an index over finished rows,
     * are copied to the archive table and deleted (or only deleted) in one transaction, so a batch
     * cut short by a crash moves nothing; only while the shard's fence still holds {@code epoch}.
     * Pending rows are never touched.
     *
     * @return the rows moved or deleted, {@code 0} when none was due; {@code -1} when a newer epoch
     *     fenced the shard and nothing changed
     * @throws IllegalStateException when the task does not archive
     */
    int archive(TaskDefinition task, int shard, long epoch);

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
     * Counts the pending rows of the tasks' table that none of their matches selects, which no task
     * ever fetches: one count over the pending rows, at startup. The tasks share one table, status
     * column and pending value, each has a {@link TaskDefinition#match() match}, and each was
     * {@link #inspect inspected} without problems.
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
     * Ids by id are {@code Long}s.
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

    /**
     * Whether the task is paused on every node, as {@link #pauseEverywhere} last set it.
     *
     * @return {@code false} when it was never set
     */
    boolean pausedEverywhere(TaskDefinition task);

    /** Pauses ({@code true}) or resumes the task on every node, recording who and when; it outlives restarts. */
    void pauseEverywhere(TaskDefinition task, boolean paused, String by, Instant at);

    /**
     * Whether any of the task's rows is left that its current run must finish before it ends: a
     * pending row with a shard key that is either failed before (waiting in a retry tier, or held
     * back behind its key) or, for a task with a due-at column, due by the store's own clock. Fresh
     * rows whose due time has not come (or is NULL) and rows whose shard key is NULL do not count:
     * no shard would fetch them now. One cheap query through the pending-row index, which stops at
     * the first such row.
     *
     * @throws UnsupportedOperationException when this store keeps no {@link #runs() runs}
     */
    default boolean anyLeft(TaskDefinition task) {
        throw new UnsupportedOperationException("this task store keeps no runs");
    }

    /**
     * Where this store keeps the tasks' runs (see {@link TaskRuns}), shared by every node.
     *
     * @return {@code null} when it keeps none: then only tasks that run forever can use it
     */
    default @org.jspecify.annotations.Nullable TaskRuns runs() {
        return null;
    }

    /**
     * Runs {@code work} in one transaction of this store, which the handler's own database writes
     * on the same data source join: it commits when {@code work} returns {@code true} and rolls
     * back when it returns {@code false} or throws.
     *
     * @return whether it committed
     * @throws Exception what {@code work} threw, after the rollback
     */
    boolean inTransaction(TransactionalWork work) throws Exception;

    /** Work that decides at its end whether its transaction commits. */
    @FunctionalInterface
    interface TransactionalWork {

        /** Does the work; {@code true} to commit, {@code false} to roll back. */
        boolean run() throws Exception;
    }
}
