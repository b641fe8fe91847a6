package io.shardscan.core.spi;

import io.shardscan.core.EngineSettings;
import io.shardscan.core.task.KeyType;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.RowKey;
import io.shardscan.core.task.TaskDefinition;
import java.util.List;
import java.util.Optional;

/**
 * Where a task's rows live, as a round needs them: fetch, the idle probe, held keys, the fence and the
 * write-back, archiving under the fence, and the application's work in a transaction. The operator's
 * calls ({@link TaskAdmin}), the controller's ({@link TaskControl}) and the runs ({@link TaskRuns}) are
 * ports of their own, reached from here. The engine decides what to fetch and what to write; a store
 * only runs those reads and writes against its backend. A task's rows are the rows of its table that its
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
     * {@link #dueRequests(TaskDefinition, List)} for requests in several tables of this store's data:
     * request {@code i} asks the table of {@code tasks.get(i)}, a part ({@link TaskDefinition#part}) of a
     * sharded task, so that the idle shards of every table of one data source are asked in one statement.
     *
     * <p>The default asks each task's requests apart, one {@link #dueRequests(TaskDefinition, List)} per task.
     *
     * @return the positions in {@code requests} of those that have such a row, in any order
     */
    default List<Integer> dueRequests(List<TaskDefinition> tasks, List<FetchRequest> requests) {
        java.util.Map<TaskDefinition, List<Integer>> byTask = new java.util.LinkedHashMap<>();
        for (int position = 0; position < requests.size(); position++) {
            byTask.computeIfAbsent(tasks.get(position), task -> new java.util.ArrayList<>())
                    .add(position);
        }
        List<Integer> due = new java.util.ArrayList<>();
        byTask.forEach((task, positions) -> {
            List<Integer> found =
                    dueRequests(task, positions.stream().map(requests::get).toList());
            found.forEach(position -> due.add(positions.get(position)));
        });
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
     * The operator's side of this store: backlog counts, failed rows by group, reading a row, requeues.
     *
     * @return the same object on every call
     */
    TaskAdmin admin();

    /**
     * The controller's side of this store: the pause every node obeys, and whether a run has rows left.
     *
     * @return the same object on every call
     */
    TaskControl control();

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

    /**
     * {@link #inTransaction(TransactionalWork)} for the work of one shard's round: in the data source of
     * the shard's table, where a store holds several ({@link TaskDefinition#tables()}).
     *
     * <p>The default ignores the shard.
     */
    default boolean inTransaction(TaskDefinition task, int shard, TransactionalWork work) throws Exception {
        return inTransaction(work);
    }

    /** Work that decides at its end whether its transaction commits. */
    @FunctionalInterface
    interface TransactionalWork {

        /** Does the work; {@code true} to commit, {@code false} to roll back. */
        boolean run() throws Exception;
    }
}
