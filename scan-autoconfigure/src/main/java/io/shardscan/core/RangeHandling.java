package io.shardscan.core;

import java.util.List;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * Runs the handler of a range task on rows in id order, trying a failing call again at once up to
 * {@link RangeTask#inPlaceRetries()} times; what still fails becomes a {@link RangeFailure} per row.
 * A batch handler gets a page's rows as one list, tried and failed together. Thread-safe when the
 * handler is.
 */
final class RangeHandling {

    private final RangeTask task;
    private final TaskHandler handler;
    private final ScanClock clock;

    RangeHandling(RangeTask task, TaskHandler handler, ScanClock clock) {
        this.task = task;
        this.handler = handler;
        this.clock = clock;
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
        return rows.stream()
                .map(row -> new RangeFailure(row.id(), failed.error(), failed.attempts(), clock.now()))
                .toList();
    }

    private record Failed(String error, int attempts) {}

    private @Nullable Failed attempt(List<Row> rows, IntFunction<ScanContext> context) {
        int allowed = 1 + task.inPlaceRetries();
        for (int attempt = 1; ; attempt++) {
            Outcome outcome = call(rows, context.apply(attempt));
            switch (outcome.kind()) {
                case DONE, SKIP -> {
                    return null;
                }
                case DEAD -> {
                    return new Failed(reason(outcome), attempt);
                }
                case RETRY -> {
                    if (attempt >= allowed || Thread.currentThread().isInterrupted()) {
                        return new Failed(reason(outcome), attempt);
                    }
                }
            }
        }
    }

    private Outcome call(List<Row> rows, ScanContext ctx) {
        try {
            Outcome returned = handler instanceof TaskHandler.PerRow perRow
                    ? perRow.handle(rows.get(0), ctx)
                    : ((TaskHandler.Batch) handler).handle(rows, ctx);
            return returned == null ? Outcome.done() : returned;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Outcome.retryLater("interrupted");
        } catch (Exception e) {
            return Outcome.retryLater(e.getMessage() == null ? e.getClass().getName() : e.getMessage());
        }
    }

    private static String reason(Outcome outcome) {
        return outcome.reason() == null ? outcome.kind().tag() : outcome.reason();
    }
}
