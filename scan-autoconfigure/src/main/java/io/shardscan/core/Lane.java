package io.shardscan.core;

import io.shardscan.core.spi.WriteBack;
import io.shardscan.core.task.EndpointRules;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.ScanContext;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * The rows of one lane, run in id order on one worker thread. Before each row it checks that the
 * shard's lease is still good and that the row's key is not held back by an earlier failed row;
 * a row that may not start stays pending, untouched. The round watches the row in the handler:
 * past the task's handler timeout it takes the row from the lane ({@link #abandonIfOverdue}),
 * records it failed and gives the lane's worker back, so a hung call holds one thread and never a
 * worker, a shard or the task. A lane left running a call to a slow endpoint when its round ends
 * ({@link #detach}) runs its other rows after that call, but calls no slow endpoint again: those
 * rows are skipped (holding their keys back) and wait for the next pass, so the lane ends soon.
 */
final class Lane implements Runnable {

    private static final System.Logger log = ScanLogging.getLogger(Lane.class);

    private final TaskContext task;
    private final OwnedShard shard;
    private final Tier tier;
    private final List<Row> rows;
    private final Outcomes outcomes;
    private final LaneLatch latch;
    private final AtomicReference<Call> inHandler = new AtomicReference<>();
    private final AtomicBoolean finished = new AtomicBoolean();

    private volatile boolean abandoned;
    /** Its round ended while it ran a slow call: it calls no slow endpoint again. */
    private volatile boolean detached;

    /** The thread running the lane, while it does; guarded by {@link #threadLock} where it is interrupted. */
    private volatile Thread thread;

    private final Object threadLock = new Object();

    /** The unit of rows in a handler call, and when the call started. */
    private record Call(List<Row> unit, long startedNanos) {}

    Lane(TaskContext task, OwnedShard shard, Tier tier, List<Row> rows, Outcomes outcomes, LaneLatch latch) {
        this.task = task;
        this.shard = shard;
        this.tier = tier;
        this.rows = rows;
        this.outcomes = outcomes;
        this.latch = latch;
    }

    @Override
    public void run() {
        thread = Thread.currentThread();
        try {
            runUnits();
        } finally {
            // under the lock the round interrupts with: once the thread left, no interrupt meant for this
            // lane's call reaches the next lane it runs (another shard's, or on the node's workers another task's)
            synchronized (threadLock) {
                thread = null;
            }
            finish();
        }
    }

    private void runUnits() {
        EndpointBlacklist endpoints = task.endpoints();
        if (task.handler() instanceof TaskHandler.Batch) {
            List<Row> admitted = rows.stream().filter(shard.held()::admits).toList();
            if (endpoints != null) {
                admitted = admitBatch(endpoints, admitted);
            }
            if (!admitted.isEmpty()) {
                runBatch(endpoints, admitted);
            }
            return;
        }
        for (Row row : rows) {
            if (!shard.held().admits(row)) {
                continue;
            }
            if (!(endpoints == null ? runUnit(List.of(row)) : runRow(endpoints, row))) {
                return;
            }
        }
    }

    /** Runs one handler call and records its outcome; returns whether the lane goes on. */
    private boolean runUnit(List<Row> unit) {
        Result result = invoke(unit);
        if (result == null) {
            return false;
        }
        record(unit, result);
        return true;
    }

    /**
     * Runs one row of a task with endpoints: a row its endpoint's blacklist or slow share does not
     * admit is recorded as the blacklist says without a call; an endpoint-down failure is tried
     * again at once until the endpoint trips level 1.
     */
    private boolean runRow(EndpointBlacklist endpoints, Row row) {
        String endpoint = endpoints.rules().endpointOf(row);
        EndpointBlacklist.Admission admission = detached && endpoint != null && endpoints.isSlow(endpoint)
                ? EndpointBlacklist.Admission.SKIP_SLOW
                : endpoints.admit(endpoint);
        if (!admission.calls()) {
            Outcome skipped = endpoints.skipped(admission, endpoint);
            outcomes.put(row, skipped);
            recorded(row, skipped, Duration.ZERO);
            return true;
        }
        while (true) {
            Result result = invoke(List.of(row));
            boolean tripped = endpoints.ended(
                    endpoint, admission, result == null ? null : result.outcome(), result == null ? 0 : result.nanos());
            if (result == null) {
                return false;
            }
            boolean again = result.outcome().endpointDown()
                    && !tripped
                    && !result.written()
                    && admission == EndpointBlacklist.Admission.CALL
                    && endpoints.admitsRetry(endpoint);
            if (!again) {
                record(List.of(row), result);
                return true;
            }
            // admitted again: the next try holds the endpoint's in-flight count taken just now
        }
    }

    /** The rows of a batch whose endpoints admit a call; the others are recorded as their blacklist says. */
    private List<Row> admitBatch(EndpointBlacklist endpoints, List<Row> unit) {
        List<Row> admitted = new ArrayList<>();
        for (Row row : unit) {
            String endpoint = endpoints.rules().endpointOf(row);
            EndpointBlacklist.Admission admission = endpoints.admit(endpoint);
            if (admission == EndpointBlacklist.Admission.CALL) {
                admitted.add(row);
            } else {
                if (admission == EndpointBlacklist.Admission.PROBE) {
                    endpoints.ended(endpoint, admission, null, 0);
                }
                Outcome skipped = endpoints.skipped(admission, endpoint);
                outcomes.put(row, skipped);
                recorded(row, skipped, Duration.ZERO);
            }
        }
        return admitted;
    }

    private void runBatch(@Nullable EndpointBlacklist endpoints, List<Row> unit) {
        Result result = invoke(unit);
        if (endpoints != null) {
            for (Row row : unit) {
                endpoints.ended(
                        endpoints.rules().endpointOf(row),
                        EndpointBlacklist.Admission.CALL,
                        result == null ? null : result.outcome(),
                        result == null ? 0 : result.nanos());
            }
        }
        if (result != null) {
            record(unit, result);
        }
    }

    /** One handler call's outcome, whether it was written back already (transactional), and how long it took. */
    private record Result(Outcome outcome, boolean written, long nanos) {}

    /** Runs one handler call; returns {@code null} when the lane must stop (taken over, or its shard lost). */
    private Result invoke(List<Row> unit) {
        if (abandoned || !shard.canDispatch(task.clock().nanos())) {
            return null;
        }
        Call call = new Call(unit, task.clock().nanos());
        inHandler.set(call);
        if (slowEndpoint(call)) {
            latch.slowCallStarted();
        }
        task.stats().inFlight(unit.size());
        ScanListener.Timing timing = task.listener().handlerStarted(task.name(), shard.shard, tier);
        Outcome outcome = null;
        Throwable thrown = null;
        boolean written = false;
        try {
            if (task.transactional()) {
                outcome = handleInTransaction(unit);
                written = true;
            } else {
                outcome = call(unit);
            }
        } catch (Throwable e) {
            // any Throwable, a VirtualMachineError too: one that escaped ended the lane with its row unrecorded, so
            // an OutOfMemoryError in a handler ran its row 99 times at retry 0 and held its key's later rows forever
            thrown = e;
        }
        if (!inHandler.compareAndSet(call, null)) {
            // the round took this call over (and its in-flight count) when it gave up on it, and recorded and
            // logged the row: what the call threw since (the interrupt it was sent, most often) is not the row's
            task.abandonedWorkerReturned();
            timing.stop("timed-out", thrown);
            return null;
        }
        task.stats().inFlight(-unit.size());
        if (thrown != null) {
            outcome = task.handlerFailures().failed(unit, thrown);
        } else if (outcome == null) {
            timing.stop("lost", thrown);
            return null;
        }
        timing.stop(task.rules().recorded(unit.get(0).retries(), outcome).tag(), thrown);
        return new Result(outcome, written, task.clock().nanos() - call.startedNanos());
    }

    private void record(List<Row> unit, Result result) {
        Duration each = Duration.ofNanos(result.nanos() / unit.size());
        for (Row row : unit) {
            if (result.written() && result.outcome().kind() != Outcome.Kind.SKIP) {
                outcomes.writtenByCall(row);
            } else {
                // a skip writes nothing: kept as an outcome, it says the row stays pending where it is
                outcomes.put(row, result.outcome());
            }
            recorded(row, result.outcome(), each);
        }
    }

    /** Updates the held keys and tells the listener what the write-back records for {@code row}. */
    private void recorded(Row row, Outcome outcome, Duration took) {
        Outcome.Kind kind = task.rules().recorded(row.retries(), outcome);
        // a switch expression: a kind added to Outcome fails compilation here until it is handled
        boolean finished =
                switch (kind) {
                    case DONE -> true;
                    case DEAD -> {
                        task.handlerFailures().dead(row, outcome);
                        yield true;
                    }
                    case RETRY, SKIP -> false;
                };
        if (!finished) {
            shard.held().hold(row);
        } else if (shard.held().release(row)) {
            shard.keyReleased(task.clock().now());
        }
        task.listener().rowHandled(task.name(), tier, kind, took);
    }

    /**
     * Called by the round: when the call in the handler has run for {@code timeout} or more at
     * {@code nanos}, records its rows failed, interrupts the thread and ends the lane; the rest of
     * its rows stay pending.
     *
     * @return whether the lane was abandoned now
     */
    boolean abandonIfOverdue(long nanos, Duration timeout) {
        Call call = inHandler.get();
        if (call == null || nanos - call.startedNanos() < timeout.toNanos()) {
            return false;
        }
        boolean abandoned =
                abandon(call, "timed out after " + timeout + " (scan.tasks." + task.name() + ".handler-timeout)");
        if (abandoned) {
            task.stats().handlerTimedOut();
        }
        return abandoned;
    }

    /** Called by the round when it gives up waiting: the call in the handler, if any, is recorded failed. */
    void abandon(String reason) {
        abandoned = true;
        Call call = inHandler.get();
        if (call == null || !abandon(call, reason)) {
            finish();
        }
    }

    /**
     * Called by the round when shutdown interrupts it: nothing more starts, the call in the
     * handler is interrupted and its rows stay pending, untouched, for the next owner.
     */
    void leave() {
        abandoned = true;
        Call call = inHandler.get();
        if (call != null && inHandler.compareAndSet(call, null)) {
            task.stats().inFlight(-call.unit().size());
            task.workerAbandoned();
            interruptIfRunning();
        }
        finish();
    }

    /** Interrupts the lane's thread if it still runs this lane. */
    private void interruptIfRunning() {
        synchronized (threadLock) {
            Thread running = thread;
            if (running != null) {
                running.interrupt();
            }
        }
    }

    /**
     * Whether the lane runs one row's call to a slow endpoint at {@code nanos}: one known slow, or
     * a call running for longer than {@code slow-call}. A round whose other lanes ended need not wait for it.
     */
    boolean straggling(long nanos) {
        Call call = inHandler.get();
        EndpointBlacklist endpoints = task.endpoints();
        return call != null
                && endpoints != null
                && call.unit().size() == 1
                && (slowEndpoint(call)
                        || nanos - call.startedNanos()
                                >= endpoints.rules().slowCall().toNanos());
    }

    /** When the running call turns slow, or {@code Long.MAX_VALUE} when no row's call to an endpoint runs. */
    long slowDeadline() {
        Call call = inHandler.get();
        EndpointBlacklist endpoints = task.endpoints();
        return call == null || endpoints == null || call.unit().size() != 1
                ? Long.MAX_VALUE
                : call.startedNanos() + endpoints.rules().slowCall().toNanos();
    }

    /** Whether the call is one row's, to an endpoint whose last call was slow. */
    private boolean slowEndpoint(Call call) {
        EndpointBlacklist endpoints = task.endpoints();
        if (endpoints == null || call.unit().size() != 1) {
            return false;
        }
        String endpoint = endpoints.rules().endpointOf(call.unit().get(0));
        return endpoint != null && endpoints.isSlow(endpoint);
    }

    /** Its round ends without it: the call in the handler goes on, then the lane's rows of fast endpoints. */
    void detach() {
        detached = true;
    }

    /** Whether the lane ended: its rows ran, or it stopped, was taken over or left. */
    boolean ended() {
        return finished.get();
    }

    /** The lane's rows, in the order it runs them. */
    List<Row> rows() {
        return rows;
    }

    /** When the running call ends, or {@code Long.MAX_VALUE} when none runs. */
    long callDeadline(Duration timeout) {
        Call call = inHandler.get();
        return call == null ? Long.MAX_VALUE : call.startedNanos() + timeout.toNanos();
    }

    private boolean abandon(Call call, String reason) {
        if (!inHandler.compareAndSet(call, null)) {
            return false;
        }
        abandoned = true;
        task.stats().inFlight(-call.unit().size());
        Thread running = thread;
        // before the outcome is recorded, whose line says when the row went dead of it
        log.log(
                Level.WARNING,
                "Task " + task.name() + " row " + call.unit().get(0).id() + " " + reason + ": recorded failed,"
                        + " its thread " + (running == null ? "" : running.getName() + " ")
                        + "interrupted and replaced; the rest of its lane stays pending");
        Outcome failed = Outcome.retryLater(reason);
        Duration took = Duration.ofNanos(task.clock().nanos() - call.startedNanos());
        for (Row row : call.unit()) {
            outcomes.put(row, failed);
            recorded(row, failed, took);
        }
        task.workerAbandoned();
        interruptIfRunning();
        finish();
        return true;
    }

    /** Gives the worker back and opens the lane's share of the latch, once. */
    private void finish() {
        if (finished.compareAndSet(false, true)) {
            task.releaseWorkers(1);
            latch.laneEnded();
            task.wakeUp();
        }
    }

    private Outcome call(List<Row> unit) throws Exception {
        Outcome outcome = task.handler() instanceof TaskHandler.Batch batch
                ? batch.handle(unit, context(unit.get(0)))
                : ((TaskHandler.PerRow) task.handler()).handle(unit.get(0), context(unit.get(0)));
        return outcome == null ? Outcome.done() : outcome;
    }

    /**
     * Runs the handler and writes its rows back in one transaction that commits only while the
     * fence holds this shard's epoch; returns {@code null}, with everything rolled back and the
     * shard lost here, when a newer owner took the shard meanwhile.
     */
    private Outcome handleInTransaction(List<Row> unit) throws Exception {
        Outcome[] outcome = new Outcome[1];
        WriteBack[] written = new WriteBack[1];
        boolean committed = task.store().inTransaction(task.definition(), shard.shard, () -> {
            outcome[0] = call(unit);
            Outcomes own = new Outcomes(task.definition(), task.rules(), unit);
            unit.forEach(row -> own.put(row, outcome[0]));
            written[0] = own.drain(
                            shard.shard,
                            shard.epoch,
                            task.countingRun(),
                            task.clock().now())
                    .writeBack();
            return task.store().writeBack(task.definition(), written[0]);
        });
        if (!committed) {
            shard.lose("epoch " + shard.epoch + " was superseded while a handler ran; its transaction was rolled"
                    + " back");
            return null;
        }
        task.stats().recorded(written[0]);
        return outcome[0];
    }

    private ScanContext context(Row row) {
        EndpointRules endpoints = task.definition().endpoints();
        return new ScanContext(
                task.name(),
                task.nodeId(),
                shard.shard,
                shard.epoch,
                row.retries() + 1,
                endpoints == null ? null : endpoints.endpointOf(row),
                task.definition().tables() == null
                        ? null
                        : task.definition().tables().nameOf(shard.shard));
    }
}
