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
        List<List<Row>> units = task.handler() instanceof TaskHandler.Batch
                ? List.of(rows)
                : rows.stream().map(List::of).toList();
        for (List<Row> unit : units) {
            if (!shard.canDispatch(task.clock().nanos())) {
                return;
            }
            long started = task.clock().nanos();
            task.stats().inFlight(unit.size());
            Outcome outcome;
            boolean written = false;
            try {
                if (task.transactional()) {
                    outcome = handleInTransaction(unit);
                    written = true;
                } else {
                    outcome = call(unit);
                }
            } catch (Exception | LinkageError | AssertionError e) {
                outcome = failed(unit, e);
            } finally {
                task.stats().inFlight(-unit.size());
            }
            if (outcome == null) {
                return;
            }
            Duration each = Duration.ofNanos((task.clock().nanos() - started) / unit.size());
            for (Row row : unit) {
                if (!written) {
                    outcomes.put(row, outcome);
                }
                task.listener().rowHandled(task.name(), tier, written(row, outcome), each);
            }
        }
    }

    /** The kind the write-back records: a failure past the last tier is written dead. */
    private Outcome.Kind written(Row row, Outcome outcome) {
        return outcome.kind() == Outcome.Kind.RETRY && task.definition().exhausted(row.retries() + 1)
                ? Outcome.Kind.DEAD
                : outcome.kind();
    }

    private Outcome call(List<Row> unit) throws Exception {
        Outcome outcome = task.handler() instanceof TaskHandler.Batch batch
                ? batch.handle(unit, context(unit.get(0)))
                : ((TaskHandler.PerRow) task.handler()).handle(unit.get(0), context(unit.get(0)));
        return outcome == null ? Outcome.done() : outcome;
    }

    /**
     * Runs the handler and writes its rows back in one transaction that commits only while the
     * fence holds this lease's epoch; returns {@code null}, with everything rolled back and the
     * shard fenced off here, when a newer owner took the shard meanwhile.
     */
    private Outcome handleInTransaction(List<Row> unit) throws Exception {
        Outcome[] outcome = new Outcome[1];
        WriteBack[] written = new WriteBack[1];
        boolean committed = task.store().inTransaction(() -> {
            outcome[0] = call(unit);
            Outcomes own = new Outcomes(task.definition(), unit, task.errorLength());
            unit.forEach(row -> own.put(row, outcome[0]));
            written[0] = own.toWriteBack(shard.shard, shard.epoch, task.clock().now());
            return task.store().writeBack(task.definition(), written[0]);
        });
        if (!committed) {
            shard.fenceOff();
            task.listener().leaseLost(task.name(), shard.shard);
            log.log(
                    Level.WARNING,
                    "Task " + task.name() + " shard " + shard.shard + ": epoch " + shard.epoch
                            + " was superseded while a handler ran; its transaction was rolled back");
            return null;
        }
        task.stats().recorded(written[0]);
        return outcome[0];
    }

    private ScanContext context(Row row) {
        return new ScanContext(task.name(), task.nodeId(), shard.shard, shard.epoch, row.retries() + 1);
    }

    /**
     * Logs a handler failure once per distinct message at WARN, with the row id and cause, and
     * then at most once a minute with how many rows failed the same way meanwhile; every other
     * occurrence goes to DEBUG, so that a failing dependency does not log once per row and retry.
     */
    private Outcome failed(List<Row> unit, Throwable e) {
        Row row = unit.get(0);
        String reason = e.getClass().getName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        long suppressed =
                task.failures().record(reason, unit.size(), task.clock().nanos());
        if (suppressed >= 0) {
            String batch = unit.size() > 1 ? " (with the " + (unit.size() - 1) + " other rows of its batch)" : "";
            String more = suppressed > 0 ? "; and " + suppressed + " more rows failed the same way" : "";
            log.log(
                    Level.WARNING,
                    "Task " + task.name() + " row " + row.id() + batch + " failed at attempt " + (row.retries() + 1)
                            + ": " + reason + more,
                    e);
        } else {
            log.log(
                    Level.DEBUG,
                    () -> "Task " + task.name() + " row " + row.id() + " failed again (retry " + row.retries() + "): "
                            + reason);
        }
        return Outcome.retryLater(reason);
    }
}
