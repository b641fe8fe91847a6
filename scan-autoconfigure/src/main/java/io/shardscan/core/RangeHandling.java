package io.shardscan.core;

import io.shardscan.core.spi.FailureGroup;
import io.shardscan.core.spi.RangeFailure;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.ScanContext;
import io.shardscan.core.task.TaskHandler;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * Runs the handler of a range task on rows in id order, trying a failing call again at once up to
 * {@link RangeTask#inPlaceRetries()} times; what still fails becomes a {@link RangeFailure} per row.
 * A batch handler gets a page's rows as one list, tried and failed together. A row recorded as failed
 * is logged as a status task's failure is: at WARN the first time its kind is seen, then at most once
 * per {@link FailureLog#INTERVAL} with how many failed the same way meanwhile (the {@link FailureLog}
 * is the task's, shared by its workers), else at DEBUG. Thread-safe when the handler is.
 */
final class RangeHandling {

    private static final System.Logger log = ScanLogging.getLogger(RangeHandling.class);

    private final RangeTask task;
    private final TaskHandler handler;
    private final ScanClock clock;
    private final FailureLog failureLog;

    RangeHandling(RangeTask task, TaskHandler handler, ScanClock clock, FailureLog failureLog) {
        this.task = task;
        this.handler = handler;
        this.clock = clock;
        this.failureLog = failureLog;
    }

    /** Whether the handler takes a page's rows at once. */
    boolean batch() {
        return handler instanceof TaskHandler.Batch;
    }

    /**
     * Handles rows: one row for a per-row handler, a page for a batch handler.
     *
     * @param context the context of each attempt, by its number from 1
     * @return one failure per row when the call failed every try; empty when done or skipped
     */
    List<RangeFailure> handle(List<Row> rows, IntFunction<ScanContext> context) {
        Failed failed = attempt(rows, context);
        if (failed == null) {
            return List.of();
        }
        logFailure(rows, failed);
        return rows.stream()
                .map(row -> new RangeFailure(row.id(), failed.error(), failed.attempts(), clock.now()))
                .toList();
    }

    private record Failed(
            String error, int attempts, @Nullable Throwable cause) {}

    private void logFailure(List<Row> rows, Failed failed) {
        Throwable cause = failed.cause();
        String kind = cause == null ? "outcome: " + FailureGroup.keyOf(failed.error()) : FailureLog.kindOf(cause);
        long suppressed = failureLog.record(kind, rows.size(), clock.nanos());
        String what = "Task " + task.name() + " row " + rows.get(0).id()
                + (rows.size() > 1 ? " (with the " + (rows.size() - 1) + " other rows of its page)" : "")
                + " failed " + failed.attempts() + (failed.attempts() == 1 ? " time" : " times") + " and is recorded"
                + " as failed: " + failed.error();
        if (suppressed < 0) {
            log.log(Level.DEBUG, () -> what);
            return;
        }
        log.log(
                Level.WARNING,
                what + (suppressed > 0 ? "; and " + suppressed + " more rows failed the same way" : "")
                        + ". The range moves on; POST /actuator/scan/" + task.name()
                        + " {\"action\": \"requeue\"} runs the failed rows again",
                cause);
    }

    private @Nullable Failed attempt(List<Row> rows, IntFunction<ScanContext> context) {
        int allowed = 1 + task.inPlaceRetries();
        for (int attempt = 1; ; attempt++) {
            Throwable[] thrown = new Throwable[1];
            Outcome outcome = call(rows, context.apply(attempt), thrown);
            // a switch expression: a kind added to Outcome fails compilation here until it is handled
            boolean again =
                    switch (outcome.kind()) {
                        case DONE, SKIP, DEAD -> false;
                        case RETRY ->
                            attempt < allowed && !Thread.currentThread().isInterrupted();
                    };
            if (!again) {
                return outcome.kind() == Outcome.Kind.DONE || outcome.kind() == Outcome.Kind.SKIP
                        ? null
                        : new Failed(reason(outcome), attempt, thrown[0]);
            }
        }
    }

    /** Calls the handler; anything it throws becomes a retry, and is left in {@code thrown[0]}. */
    private Outcome call(List<Row> rows, ScanContext ctx, Throwable[] thrown) {
        try {
            Outcome returned = handler instanceof TaskHandler.PerRow perRow
                    ? perRow.handle(rows.get(0), ctx)
                    : ((TaskHandler.Batch) handler).handle(rows, ctx);
            return returned == null ? Outcome.done() : returned;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            thrown[0] = e;
            return Outcome.retryLater("interrupted");
        } catch (Throwable e) {
            // an Error too (OutOfMemoryError, StackOverflowError): escaping, it failed the whole range,
            // which then ran again from its last commit, its row never recorded
            thrown[0] = e;
            return Outcome.retryLater(e instanceof Error || e.getMessage() == null ? e.toString() : e.getMessage());
        }
    }

    private static String reason(Outcome outcome) {
        return outcome.reason() == null ? outcome.kind().tag() : outcome.reason();
    }
}
