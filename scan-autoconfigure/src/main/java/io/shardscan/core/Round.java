package io.shardscan.core;

import io.shardscan.core.task.Ordering;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.TaskDefinition;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One round: one shard × one tier. Starts only with at least one free worker, fetches one page,
 * splits it into as many lanes (by shard key) as workers it holds, runs the lanes on the task's
 * pool and waits on their latch ({@link RunningLanes}: commits at least every commit interval, so
 * a crash or a freeze redoes at most that much, takes over calls past the handler timeout, gives
 * up after the round timeout, and ends without the calls of slow endpoints, which finish as the
 * shard's stragglers); then it writes the rest back. Every write-back is fenced by the shard's
 * epoch. Rows of earlier rounds' stragglers, and with per-key order the later rows of their keys,
 * are left pending. A page is never cut to the workers free
 * at that instant: lanes end one by one, and pages cut to them would turn one fetch and write-back
 * into many (measured: a third of the throughput); the dispatcher spreads the free workers over the
 * shards due together instead ({@link WorkerShares}). Each lane gives its worker back as soon as it
 * ends, so a slow row holds one worker, not the round's. With a node-wide {@link WorkerBudget} a
 * round starts without workers and takes them from the budget after its fetch, ranked by its
 * task's priority and by how long its oldest row has been due; while it waits it holds no thread.
 * A round fetches on one thread and runs its lanes on another (of the node's few fetch threads and
 * its round threads), so the rounds that wait for the database or for workers hold few threads.
 */
final class Round {

    private static final System.Logger log = ScanLogging.getLogger(Round.class);

    private final TaskContext task;
    private final OwnedShard shard;
    private final TierCursor cursor;
    private final WorkerBudget.@Nullable Request request;
    private final Executor lanes;
    private final Consumer<@Nullable RunningLanes> ended;

    // what the round carries from its fetch to its lanes, which run on another thread
    private final long started;
    private int held;
    private final ScanListener.Timing timing;
    private String outcome = "failed";
    private @Nullable Throwable error;
    private @Nullable RunningLanes left;
    private boolean handlersRan;
    private List<Row> page = List.of();
    private List<Row> startable = List.of();

    /**
     * Starts the round on the calling thread: {@link #run()} next.
     *
     * @param permits the task's workers the dispatcher took for it; 0 when it is in line for workers
     *     of the node's budget with {@code request}
     * @param lanes where the round runs its lanes once its fetch found rows and it holds workers
     * @param ended told once the round ended, whatever happened, with the lanes it left running (whose
     *     {@link RunningLanes#finishStragglers} the caller runs then), or {@code null} when none; the
     *     round's workers are given back by then
     */
    Round(
            TaskContext task,
            OwnedShard shard,
            TierCursor cursor,
            int permits,
            WorkerBudget.@Nullable Request request,
            Executor lanes,
            Consumer<@Nullable RunningLanes> ended) {
        this.task = task;
        this.shard = shard;
        this.cursor = cursor;
        this.held = permits;
        this.request = request;
        this.lanes = lanes;
        this.ended = ended;
        this.started = task.clock().nanos();
        this.timing = task.listener().roundStarted(task.name(), shard.shard, cursor.tier);
    }

    /**
     * Runs the round's fetch on the calling thread, then hands it to {@code lanes} to run its lanes.
     * In line for the node's budget, it takes its workers from there after its fetch; when none are
     * free it waits in line without a thread, and is handed on once granted.
     */
    void run() {
        step(this::fetch);
    }

    /**
     * Runs one step of the round, then ends it unless the step handed it on to another thread; a
     * failure ends it too, its rows left pending.
     */
    private void step(BooleanSupplier step) {
        boolean handedOn = false;
        try {
            handedOn = step.getAsBoolean();
        } catch (RuntimeException | Error e) {
            // an Error too (a class gone from a replaced jar): escaping, it killed the round's thread and
            // left the cursor due, so the same rows ran again and again with nothing written back
            error = e;
            if (e instanceof RuntimeException) {
                task.stats().storeReached(!StoreFailure.unreachable(e));
            }
            Duration retryAfter = RoundFailure.retryAfter(e, handlersRan, cursor.tier);
            logFailure(e, retryAfter);
            cursor.retryAt(task.clock().now().plus(retryAfter));
        } finally {
            if (!handedOn) {
                end();
            }
        }
    }

    /** Gives back what the round holds, and tells that it ended. */
    private void end() {
        try {
            if (request != null) {
                // no longer in line once granted or given up: then this changes nothing
                Objects.requireNonNull(task.budget()).cancel(request);
            }
            task.releaseWorkers(held);
            held = 0;
            timing.stop(outcome, error);
        } finally {
            ended.accept(left);
        }
    }

    /**
     * Fetches the page; with rows to run, hands the round on to run its lanes, once it holds workers.
     *
     * @return whether the round was handed on: another thread runs it from here, or will
     */
    private boolean fetch() {
        refreshHeldKeys();
        // taken before the fetch: a straggler ending after this may have its row read as pending by
        // the fetch, and the snapshot still leaves that row out
        Stragglers.Snapshot straggling = shard.stragglers().snapshot();
        Instant now = task.clock().now();
        int limit = task.definition().rounds().pageSize();
        EndpointBlacklist endpoints = task.endpoints();
        cursor.fetching();
        page = task.store()
                .fetch(
                        task.definition(),
                        task.fetch(
                                shard.shard,
                                cursor.tier,
                                cursor.afterDue,
                                cursor.afterId,
                                cursor.afterText,
                                limit,
                                endpoints == null ? List.of() : endpoints.excluded()));
        task.stats().storeReached(true);
        if (page.isEmpty() || !shard.canDispatch(task.clock().nanos())) {
            cursor.advance(List.of(), limit, now, List.of());
            outcome = page.isEmpty() ? "empty" : "lost";
            return false;
        }
        startable = notLeftBehind(straggling.startable(page));
        if (startable.isEmpty()) {
            cursor.advance(page, limit, task.clock().now(), perKey() ? page : List.of());
            outcome = "handled";
            return false;
        }
        int granted = request == null ? held : awaitWorkers();
        if (granted != WorkerBudget.IN_LINE) {
            handOn(granted);
        }
        // handed on, or in line to be once granted: another thread has the round from here
        return true;
    }

    /**
     * Hands the round, holding {@code granted} workers, on to a round thread to run its lanes; 0 when
     * it gave up waiting for them in the budget's line, to end there.
     */
    private void handOn(int granted) {
        held = granted;
        try {
            // the lanes' wait and write-back on a round thread: the fetch threads are few, and only fetch
            lanes.execute(() -> step(this::withWorkers));
        } catch (RejectedExecutionException e) {
            // the task shut down meanwhile: the round ends without its lanes, its workers given back
            outcome = "cancelled";
            end();
        }
    }

    /** The round handed on: runs its lanes with the workers it holds, or ends when it got none. */
    private boolean withWorkers() {
        if (request != null) {
            // out of line: the task may put its next round in line while this one runs its lanes
            task.wakeUp();
        }
        if (held == 0) {
            // stopped, paused or the shard moved while it waited: the page stays pending, fetched again
            outcome = "cancelled";
            return false;
        }
        runLanes();
        return false;
    }

    /** Splits the page into lanes for the workers held, runs them, and writes back. */
    private void runLanes() {
        List<List<Row>> split = Lanes.split(
                startable, Math.min(held, startable.size()), task.definition().endpoints(), perKey());
        task.releaseWorkers(held - split.size());
        held = 0;
        Outcomes outcomes = new Outcomes(task.definition(), task.rules(), page);
        handlersRan = true;
        RunningLanes lanes = RunningLanes.start(task, shard, cursor.tier, split, outcomes, started);
        if (lanes.awaitOrDetach()) {
            left = lanes;
        }
        if (!lanes.flush()) {
            outcome = "lost";
            return;
        }
        cursor.advance(
                page,
                task.definition().rounds().pageSize(),
                task.clock().now(),
                perKey() ? outcomes.unfinished() : List.of());
        outcome = "handled";
    }

    private boolean perKey() {
        return task.definition().ordering() == Ordering.PER_KEY;
    }

    /** The rows of {@code page} whose keys this pass has not left behind (see {@link TierCursor}). */
    private List<Row> notLeftBehind(List<Row> page) {
        if (!perKey()) {
            return page;
        }
        List<Row> startable = new ArrayList<>(page.size());
        for (Row row : page) {
            if (!cursor.leftBehind(row.shardKey())) {
                startable.add(row);
            }
        }
        return startable;
    }

    /**
     * A failed round at WARN the first time its kind (see {@link FailureLog}) is seen, then at most
     * once a minute with how many rounds failed the same way meanwhile, else at DEBUG: a statement
     * the database refuses fails every round of every shard, each second.
     */
    private void logFailure(Throwable e, Duration retryAfter) {
        long suppressed = task.failures()
                .record("round: " + FailureLog.kindOf(e), 1, task.clock().nanos());
        String message = "Task " + task.name() + " shard " + shard.shard + ": round failed, its rows stay pending"
                + " and are fetched again"
                + (retryAfter.compareTo(RoundFailure.REFETCH) > 0 ? " in " + retryAfter : "")
                + ": " + StoreFailure.describe(e)
                + (e instanceof LinkageError
                        ? " (a class the node loaded is gone or changed: was the application's jar replaced"
                                + " while it ran? Restart the node)"
                        : "");
        if (suppressed >= 0) {
            log.log(
                    e instanceof Error ? Level.ERROR : Level.WARNING,
                    message + (suppressed > 0 ? "; and " + suppressed + " more rounds failed the same way" : ""),
                    e);
        } else {
            log.log(Level.DEBUG, message);
        }
    }

    /**
     * Waits in the node's budget for as many workers as the page can use, without a thread; the rank
     * of the round ages with its oldest row only when its task has a max-wait, which costs reading its
     * rows' timestamps.
     *
     * @return the workers taken at once, 0 when the round gave up, or {@link WorkerBudget#IN_LINE}:
     *     {@link #handOn} follows
     */
    private int awaitWorkers() {
        WorkerBudget budget = Objects.requireNonNull(task.budget(), "a round in line needs the budget");
        TaskDefinition definition = task.definition();
        Instant oldestDue = definition.rounds().maxWait() == null
                ? null
                : DueTimes.oldest(task.rules(), startable, definition.columns().updatedAt());
        return budget.whenGranted(
                Objects.requireNonNull(request),
                Math.min(definition.rounds().workers(), startable.size()),
                oldestDue,
                () -> task.dispatching()
                        && shard.busy()
                        && shard.canDispatch(task.clock().nanos()),
                this::handOn);
    }

    /**
     * Once per the longest tier interval, while keys wait, reads them back from the table: a failed
     * row finished outside the engine then stops holding its key back.
     */
    private void refreshHeldKeys() {
        if (shard.heldKeysDue(task.clock().nanos(), task.rules().longestInterval())) {
            shard.held().reload(task.store().failedRows(task.definition(), shard.shard));
        }
    }
}
