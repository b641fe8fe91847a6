package io.shardscan.core;

import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One round: one shard × one tier. Starts only with at least one free worker, fetches one page,
 * splits it into as many lanes (by shard key) as workers it holds, runs the lanes on the task's
 * pool and waits on a latch. While it waits it writes back what finished at least every commit
 * interval (so a crash or a freeze redoes at most that much), takes over calls that ran past the
 * handler timeout, and gives up on the lanes after the round timeout; then it writes the rest
 * back. Every write-back is fenced by the shard's epoch. A page is never cut to the workers free
 * at that instant: lanes end one by one, and pages cut to them would turn one fetch and write-back
 * into many (measured: a third of the throughput). Each lane gives its worker back as soon as it
 * ends, so a slow row holds one worker, not the round's. With a node-wide {@link WorkerBudget} a
 * round starts without workers and takes them from the budget after its fetch, ranked by its
 * task's priority and by how long its oldest row has been due.
 */
final class Round {

    private static final System.Logger log = ScanLogging.getLogger(Round.class);

    private final TaskContext task;
    private final OwnedShard shard;
    private final TierCursor cursor;
    private final int permits;
    private final WorkerBudget.@Nullable Request request;

    /**
     * @param permits the task's workers the dispatcher took for it; 0 when it is in line for workers
     *     of the node's budget with {@code request}
     */
    Round(TaskContext task, OwnedShard shard, TierCursor cursor, int permits, WorkerBudget.@Nullable Request request) {
        this.task = task;
        this.shard = shard;
        this.cursor = cursor;
        this.permits = permits;
        this.request = request;
    }

    /**
     * Runs the round on the calling thread; returns the worker permits it was given or took, whatever
     * happens. In line for the node's budget, it takes its workers from there after its fetch.
     */
    void run() {
        long started = task.clock().nanos();
        int held = permits;
        boolean inLine = request != null;
        ScanListener.Timing timing = task.listener().roundStarted(task.name(), shard.shard, cursor.tier);
        String outcome = "failed";
        try {
            refreshHeldKeys();
            Instant now = task.clock().now();
            int limit = task.definition().pageSize();
            EndpointBlacklist endpoints = task.endpoints();
            cursor.fetching();
            List<Row> page = task.store()
                    .fetch(
                            task.definition(),
                            task.rules()
                                    .fetch(
                                            shard.shard,
                                            cursor.tier,
                                            now,
                                            cursor.afterDue,
                                            cursor.afterId,
                                            limit,
                                            endpoints == null ? List.of() : endpoints.excluded()));
            task.stats().storeReached(true);
            if (page.isEmpty() || !shard.canDispatch(task.clock().nanos())) {
                cursor.advance(List.of(), limit, now);
                outcome = page.isEmpty() ? "empty" : "lost";
                return;
            }
            if (inLine) {
                held = awaitWorkers(page);
                inLine = false;
                if (held == 0) {
                    // stopped, paused or the shard moved while it waited: the page stays pending, fetched again
                    outcome = "cancelled";
                    return;
                }
            }
            List<List<Row>> split = Lanes.split(
                    page,
                    Math.min(held, page.size()),
                    task.definition().endpoints(),
                    task.definition().ordering() == Ordering.PER_KEY);
            task.releaseWorkers(held - split.size());
            held = 0;
            Outcomes outcomes = new Outcomes(task.definition(), task.rules(), page);
            runLanes(split, outcomes, started);
            if (!flush(outcomes)) {
                outcome = "lost";
                return;
            }
            cursor.advance(page, limit, task.clock().now());
            outcome = "handled";
        } catch (RuntimeException e) {
            task.stats().storeReached(!StoreFailure.unreachable(e));
            logFailure(e);
            cursor.retryAt(task.clock().now().plusSeconds(1));
        } finally {
            if (inLine) {
                Objects.requireNonNull(task.budget()).cancel(Objects.requireNonNull(request));
            }
            task.releaseWorkers(held);
            timing.stop(outcome);
        }
    }

    /**
     * A failed round at WARN the first time its kind (see {@link FailureLog}) is seen, then at most
     * once a minute with how many rounds failed the same way meanwhile, else at DEBUG: a statement
     * the database refuses fails every round of every shard, each second.
     */
    private void logFailure(RuntimeException e) {
        long suppressed = task.failures()
                .record("round: " + FailureLog.kindOf(e), 1, task.clock().nanos());
        String message = "Task " + task.name() + " shard " + shard.shard + ": round failed, its rows stay pending"
                + " and are fetched again: " + e;
        if (suppressed >= 0) {
            log.log(
                    Level.WARNING,
                    message + (suppressed > 0 ? "; and " + suppressed + " more rounds failed the same way" : ""),
                    e);
        } else {
            log.log(Level.DEBUG, message);
        }
    }

    /**
     * Waits in the node's budget for as many workers as the page can use; the rank of the round
     * ages with its oldest row only when its task has a max-wait, which costs reading its rows'
     * timestamps.
     *
     * @return the workers taken, 0 when the round gave up waiting
     */
    private int awaitWorkers(List<Row> page) {
        WorkerBudget budget = Objects.requireNonNull(task.budget(), "a round in line needs the budget");
        TaskDefinition definition = task.definition();
        Instant oldestDue =
                definition.maxWait() == null ? null : task.rules().oldestDue(page, definition.updatedAtColumn());
        try {
            return budget.await(
                    Objects.requireNonNull(request),
                    Math.min(definition.workers(), page.size()),
                    oldestDue,
                    () -> task.dispatching()
                            && shard.state() == OwnedShard.State.BUSY
                            && shard.canDispatch(task.clock().nanos()));
        } finally {
            // out of line: the task may put its next round in line while this one runs its lanes
            task.wakeUp();
        }
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

    private void runLanes(List<List<Row>> split, Outcomes outcomes, long started) {
        CountDownLatch latch = new CountDownLatch(split.size());
        List<Lane> lanes = new ArrayList<>(split.size());
        for (List<Row> rows : split) {
            Lane lane = new Lane(task, shard, cursor.tier, rows, outcomes, latch);
            lanes.add(lane);
            task.workers().execute(task.listener().around(task.name(), shard.shard, shard.epoch, lane));
        }
        awaitLanes(lanes, latch, outcomes, started);
    }

    /**
     * Waits until every lane ended, writing back at least every commit interval, taking over calls
     * past the handler timeout, and abandoning every lane once the round timeout passed.
     */
    private void awaitLanes(List<Lane> lanes, CountDownLatch latch, Outcomes outcomes, long started) {
        TaskDefinition definition = task.definition();
        long commitEvery = definition.commitInterval().toNanos();
        long roundDeadline = started + definition.roundTimeout().toNanos();
        long nextFlush = task.clock().nanos() + commitEvery;
        try {
            while (true) {
                long now = task.clock().nanos();
                long until = Math.min(nextFlush, roundDeadline);
                for (Lane lane : lanes) {
                    until = Math.min(until, lane.callDeadline(definition.handlerTimeout()));
                }
                if (latch.await(Math.max(0, until - now), TimeUnit.NANOSECONDS)) {
                    return;
                }
                now = task.clock().nanos();
                for (Lane lane : lanes) {
                    lane.abandonIfOverdue(now, definition.handlerTimeout());
                }
                if (now - roundDeadline >= 0) {
                    giveUp(lanes);
                    return;
                }
                if (now - nextFlush >= 0) {
                    flushQuietly(outcomes);
                    nextFlush = task.clock().nanos() + commitEvery;
                }
            }
        } catch (InterruptedException e) {
            // shutdown gave up on this round: what finished is still written back (so the interrupt
            // is not kept, it would fail that write), the rows in handlers stay pending
            lanes.forEach(Lane::leave);
        }
    }

    private void giveUp(List<Lane> lanes) {
        task.stats().latchTimedOut();
        task.listener().latchTimedOut(task.name(), shard.shard);
        log.log(
                Level.WARNING,
                "Task " + task.name() + " shard " + shard.shard + ": round still running after "
                        + task.definition().roundTimeout() + " (scan.tasks." + task.name() + ".round-timeout);"
                        + " what finished is written back, rows still in handlers are recorded failed and the"
                        + " rest stay pending; the shard goes on");
        lanes.forEach(lane -> lane.abandon("round timed out after "
                + task.definition().roundTimeout() + " (scan.tasks." + task.name() + ".round-timeout)"));
    }

    /** A commit during the round: a failure is logged and the outcomes are written with the next one. */
    private void flushQuietly(Outcomes outcomes) {
        try {
            flush(outcomes);
        } catch (RuntimeException e) {
            log.log(
                    Level.WARNING,
                    "Task " + task.name() + " shard " + shard.shard + ": write-back during the round failed,"
                            + " tried again with the next one: " + e);
        }
    }

    /** Writes back what finished since the last flush; returns {@code false} when the fence refused it. */
    private boolean flush(Outcomes outcomes) {
        Outcomes.Batch batch =
                outcomes.drain(shard.shard, shard.epoch, task.clock().now());
        if (batch.isEmpty()) {
            outcomes.written(batch);
            return true;
        }
        if (!task.store().writeBack(task.definition(), batch.writeBack())) {
            // logged here, whether or not the loss was noticed before: it is what the fence refused
            task.stats().writeBackRefused();
            log.log(
                    Level.WARNING,
                    "Task " + task.name() + " shard " + shard.shard + ": write-back under fence epoch " + shard.epoch
                            + " refused, a newer owner has the shard; "
                            + batch.writeBack().size()
                            + " outcomes discarded, the new owner runs those rows again");
            shard.lose("a newer owner took it (fence epoch " + shard.epoch + " superseded)");
            return false;
        }
        outcomes.written(batch);
        task.stats().recorded(batch.writeBack());
        return true;
    }
}
