package io.shardscan.core;

import io.shardscan.core.spi.FetchRequest;
import io.shardscan.core.spi.SchemaReport;
import io.shardscan.core.spi.TaskAdmin;
import io.shardscan.core.spi.TaskControl;
import io.shardscan.core.spi.TaskRuns;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.spi.WriteBack;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.RowKey;
import io.shardscan.core.task.TaskDefinition;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A task's {@link TaskStore} whose statements of rounds, probes, claims and pause reads are recorded
 * in its {@link RunningStatements} while they run, so that one that waits on a lock or a slow
 * database shows by its kind, and run through the store {@link TaskStore#boundedBy bounded} by the
 * statement timeout, so that none waits for good: one cancelled fails as a {@link StatementTimeout}.
 * Every other call (an operator's, the backlog count, the application's work in a transaction) goes
 * straight to the unbounded store. Thread-safe as its store.
 */
final class WatchedStore implements TaskStore {

    private final TaskStore store;
    private final TaskStore bounded;
    private final Duration timeout;
    private final RunningStatements running;
    private final TaskControl control = new WatchedControl();

    WatchedStore(TaskStore store, Duration timeout, RunningStatements running) {
        this.store = store;
        this.bounded = store.boundedBy(timeout);
        this.timeout = timeout;
        this.running = running;
    }

    /** The store this one watches, for a message that names its kind. */
    TaskStore watched() {
        return store;
    }

    private <T> T watch(String kind, Supplier<T> call) {
        long id = running.begin(kind);
        try {
            T result = call.get();
            running.succeeded(kind);
            return result;
        } catch (RuntimeException e) {
            throw bounded.timedOut(e) ? running.timedOut(kind, timeout, e) : e;
        } finally {
            running.end(id);
        }
    }

    @Override
    public SchemaReport inspect(TaskDefinition task) {
        return store.inspect(task);
    }

    @Override
    public List<Row> fetch(TaskDefinition task, FetchRequest request) {
        return watch("fetch", () -> bounded.fetch(task, request));
    }

    @Override
    public List<Integer> dueRequests(TaskDefinition task, List<FetchRequest> requests) {
        return watch("probe", () -> bounded.dueRequests(task, requests));
    }

    @Override
    public List<Integer> dueRequests(List<TaskDefinition> tasks, List<FetchRequest> requests) {
        return watch("probe", () -> bounded.dueRequests(tasks, requests));
    }

    @Override
    public List<RowKey> failedRows(TaskDefinition task, int shard) {
        return watch("held keys", () -> bounded.failedRows(task, shard));
    }

    @Override
    public long fence(TaskDefinition task, int shard, String owner) {
        return watch("fence", () -> bounded.fence(task, shard, owner));
    }

    @Override
    public Optional<String> fenceOwner(TaskDefinition task, int shard) {
        return store.fenceOwner(task, shard);
    }

    @Override
    public boolean writeBack(TaskDefinition task, WriteBack batch) {
        return watch("write-back", () -> bounded.writeBack(task, batch));
    }

    @Override
    public int archive(TaskDefinition task, int shard, long epoch) {
        return watch("archive", () -> bounded.archive(task, shard, epoch));
    }

    /** Not watched: an operator's call, never a round's. */
    @Override
    public TaskAdmin admin() {
        return store.admin();
    }

    @Override
    public TaskControl control() {
        return control;
    }

    /** The pause read, which every dispatch waits for, watched; the rest an operator's or a run's end, not. */
    private final class WatchedControl implements TaskControl {

        @Override
        public boolean pausedEverywhere(TaskDefinition task) {
            return watch("pause read", () -> bounded.control().pausedEverywhere(task));
        }

        @Override
        public java.util.Set<String> pausedEverywhere(List<TaskDefinition> tasks) {
            return watch("pause read", () -> bounded.control().pausedEverywhere(tasks));
        }

        @Override
        public void pauseEverywhere(TaskDefinition task, boolean paused, String by, Instant at) {
            store.control().pauseEverywhere(task, paused, by, at);
        }

        @Override
        public boolean anyLeft(TaskDefinition task) {
            return store.control().anyLeft(task);
        }
    }

    @Override
    public @Nullable TaskRuns runs() {
        return store.runs();
    }

    /** Not watched: the transaction holds the handler's own calls too, which are no statement of the engine. */
    @Override
    public boolean inTransaction(TransactionalWork work) throws Exception {
        return store.inTransaction(work);
    }

    @Override
    public boolean inTransaction(TaskDefinition task, int shard, TransactionalWork work) throws Exception {
        return store.inTransaction(task, shard, work);
    }
}
