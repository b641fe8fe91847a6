package io.shardscan.core;

import io.shardscan.core.spi.FailureGroup;
import io.shardscan.core.spi.RangeFailure;
import io.shardscan.core.spi.RangeTransactions;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.ScanContext;
import io.shardscan.core.task.TaskHandler;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * Runs the handler of a range task on rows in id order, trying a failing call again at once up to
 * {@link RangeTask#inPlaceRetries()} times; what still fails becomes a {@link RangeFailure} per row.
 * A batch handler gets a page's rows as one list, tried and failed together. A row recorded as failed
 * is logged as a status task's failure is: at WARN the first time its kind is seen, then at most once
 * per {@link FailureLog#INTERVAL} with how many failed the same way meanwhile (the {@link FailureLog}
 * is the task's, shared by its workers), else at DEBUG. With {@link RangeTransactions} (a transactional
 * task) each try runs in a transaction of its own, which commits only when the rows succeeded (done or
 * skipped): a try that throws, or returns a retry or dead outcome, leaves none of its statements, so a
 * row recorded as failed, which a requeue may run again, has no effect in the database. Thread-safe when
 * the handler is.
 */
final class RangeHandling {

    private static final System.Logger log = ScanLogging.getLogger(RangeHandling.class);

    private final RangeTask task;
    private final TaskHandler handler;
    private final ScanClock clock;
    private final FailureLog failureLog;
    private final @Nullable RangeTransactions transactions;
    /** Tries per call: the first and the task's in-place retries, resolved once (not per row). */
    private final int allowedTries;

    /** @param transactions those of a transactional task; {@code null} runs the handler outside any */
    RangeHandling(
            RangeTask task,
            TaskHandler handler,
            ScanClock clock,
            FailureLog failureLog,
            @Nullable RangeTransactions transactions) {
        this.task = task;
        this.handler = handler;
        this.clock = clock;
        this.failureLog = failureLog;
        this.transactions = transactions;
        this.allowedTries = 1 + task.inPlaceRetries();
    }

    /** Whether each try runs in a transaction of its own. */
    boolean transactional() {
        return transactions != null;
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
        return handle(rows, context, () -> true).failures();
    }

    /**
     * Handles rows as {@link #handle(List, IntFunction)} does, and runs {@code commit} once the try that
     * succeeded returned: within its transaction, before it commits, when the task is transactional.
     *
     * @param commit {@code false} when it was refused: the try's transaction rolls back and the rows are
     *     neither tried again nor recorded
     * @return the failures, one per row when the call failed every try; or refused
     */
    Handled handle(List<Row> rows, IntFunction<ScanContext> context, BooleanSupplier commit) {
        Tried tried = attempt(rows, context, commit);
        if (tried.refused()) {
            return Handled.REFUSED;
        }
        Failed failed = tried.failed();
        if (failed == null) {
            return Handled.SUCCEEDED;
        }
        logFailure(rows, failed);
        return new Handled(
                rows.stream()
                        .map(row -> new RangeFailure(row.id(), failed.error(), failed.attempts(), clock.now()))
                        .toList(),
                false);
    }

    /**
     * How rows ended: succeeded (no failures), failed every try (one failure per row), or succeeded and
     * their commit was refused (nothing of them kept).
     */
    record Handled(List<RangeFailure> failures, boolean refused) {

        static final Handled SUCCEEDED = new Handled(List.of(), false);
        static final Handled REFUSED = new Handled(List.of(), true);
    }

    private record Failed(
            String error, int attempts, @Nullable Throwable cause) {}

    /** The last try's failure ({@code null} when one succeeded), or a refused commit. */
    private record Tried(@Nullable Failed failed, boolean refused) {}

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

    private Tried attempt(List<Row> rows, IntFunction<ScanContext> context, BooleanSupplier commit) {
        for (int attempt = 1; ; attempt++) {
            Throwable[] thrown = new Throwable[1];
            boolean[] refused = new boolean[1];
            Outcome outcome = tryOnce(rows, context.apply(attempt), thrown, commit, refused);
            if (refused[0]) {
                return new Tried(null, true);
            }
            // a switch expression: a kind added to Outcome fails compilation here until it is handled
            boolean again =
                    switch (outcome.kind()) {
                        case DONE, SKIP, DEAD -> false;
                        case RETRY ->
                            attempt < allowedTries && !Thread.currentThread().isInterrupted();
                    };
            if (!again) {
                return new Tried(succeeded(outcome) ? null : new Failed(reason(outcome), attempt, thrown[0]), false);
            }
        }
    }

    private static boolean succeeded(Outcome outcome) {
        return outcome.kind() == Outcome.Kind.DONE || outcome.kind() == Outcome.Kind.SKIP;
    }

    /**
     * One try, in a transaction of its own when the task is transactional, whose statements commit only
     * with the rows succeeded and {@code commit} written; {@code refused[0]} tells a refused commit.
     */
    private Outcome tryOnce(
            List<Row> rows, ScanContext ctx, Throwable[] thrown, BooleanSupplier commit, boolean[] refused) {
        if (transactions == null) {
            Outcome outcome = call(rows, ctx, thrown);
            refused[0] = succeeded(outcome) && !commit.getAsBoolean();
            return outcome;
        }
        Outcome[] outcome = new Outcome[1];
        try {
            transactions.inTransaction(() -> {
                outcome[0] = call(rows, ctx, thrown);
                if (!succeeded(outcome[0])) {
                    // a failing try leaves nothing: the next try, or a requeue of the failed row, starts clean
                    return false;
                }
                refused[0] = !commit.getAsBoolean();
                return !refused[0];
            });
        } catch (RuntimeException | Error e) {
            // the transaction failed after the handler returned, and rolled back whole: a JPA session that
            // flushes at the commit (a constraint its entity breaks), or the position commit itself; the
            // try failed as a status task's transactional call does, and a try again starts clean
            refused[0] = false;
            return failed(e, thrown);
        }
        return outcome[0];
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
            return failed(e, thrown);
        }
    }

    private static Outcome failed(Throwable e, Throwable[] thrown) {
        thrown[0] = e;
        return Outcome.retryLater(e instanceof Error || e.getMessage() == null ? e.toString() : e.getMessage());
    }

    private static String reason(Outcome outcome) {
        return outcome.reason() == null ? outcome.kind().tag() : outcome.reason();
    }
}
