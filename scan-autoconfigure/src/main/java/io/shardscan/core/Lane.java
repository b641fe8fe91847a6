package io.shardscan.core;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;

/**
 * The rows of one lane, run in id order on one worker thread. Before each row it checks that the
 * shard's lease is still good: once it is not, nothing more is dispatched and the rest stay pending.
 */
final class Lane implements Runnable {

    private static final System.Logger log = System.getLogger(Lane.class.getName());

    private final TaskContext task;
    private final OwnedShard shard;
    private final Tier tier;
    private final List<Row> rows;
    private final Outcomes outcomes;

    Lane(TaskContext task, OwnedShard shard, Tier tier, List<Row> rows, Outcomes outcomes) {
        this.task = task;
        this.shard = shard;
        this.tier = tier;
        this.rows = rows;
        this.outcomes = outcomes;
    }

    @Override
    public void run() {
        if (task.handler() instanceof TaskHandler.Batch batch) {
            runBatch(batch);
            return;
        }
        TaskHandler.PerRow handler = (TaskHandler.PerRow) task.handler();
        for (Row row : rows) {
            if (!shard.canDispatch(task.clock().nanos())) {
                return;
            }
            long started = task.clock().nanos();
            task.stats().inFlight(1);
            Outcome outcome;
            try {
                outcome = orDone(handler.handle(row, context(row)));
            } catch (Exception | LinkageError | AssertionError e) {
                outcome = failed(row, e);
            } finally {
                task.stats().inFlight(-1);
            }
            outcomes.put(row, outcome);
            task.listener()
                    .rowHandled(
                            task.name(),
                            tier,
                            outcome.kind(),
                            Duration.ofNanos(task.clock().nanos() - started));
        }
    }

    private void runBatch(TaskHandler.Batch handler) {
        if (!shard.canDispatch(task.clock().nanos())) {
            return;
        }
        long started = task.clock().nanos();
        task.stats().inFlight(rows.size());
        Outcome outcome;
        try {
            outcome = orDone(handler.handle(rows, context(rows.get(0))));
        } catch (Exception | LinkageError | AssertionError e) {
            outcome = failed(rows.get(0), e);
        } finally {
            task.stats().inFlight(-rows.size());
        }
        Duration each = Duration.ofNanos((task.clock().nanos() - started) / rows.size());
        for (Row row : rows) {
            outcomes.put(row, outcome);
            task.listener().rowHandled(task.name(), tier, outcome.kind(), each);
        }
    }

    private ScanContext context(Row row) {
        return new ScanContext(task.name(), task.nodeId(), shard.shard, shard.epoch, row.retries() + 1);
    }

    private static Outcome orDone(Outcome outcome) {
        return outcome == null ? Outcome.done() : outcome;
    }

    private Outcome failed(Row row, Throwable e) {
        String reason = e.getClass().getName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        if (row.retries() == 0) {
            log.log(Level.WARNING, "Task " + task.name() + " row " + row.id() + " failed: " + reason, e);
        } else {
            log.log(
                    Level.DEBUG,
                    () -> "Task " + task.name() + " row " + row.id() + " failed again (retry " + row.retries() + "): "
                            + reason);
        }
        return Outcome.retryLater(reason);
    }
}
