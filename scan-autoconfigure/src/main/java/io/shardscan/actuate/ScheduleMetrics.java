package io.shardscan.actuate;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScheduleStatus;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * The meters of scheduled tasks ({@code scan.tasks.<name>.schedule}), status-column and range tasks
 * alike, read from what the node keeps, so a scrape runs no query: {@code scan.schedule.firings}
 * (counter; task, outcome = started or skipped), the firings this node handled since it started, each
 * counted by the one node that handled it; their sum over the nodes counts every firing. An alert on
 * {@code skipped} finds runs that outlast their schedule's period.
 */
final class ScheduleMetrics {

    private ScheduleMetrics() {}

    static void bind(MeterRegistry registry, ScanEngine engine) {
        for (String task : engine.taskNames()) {
            if (engine.task(task).schedule() != null) {
                firings(registry, engine, task, e -> e.task(task).schedule());
            }
        }
        for (String task : engine.rangeTaskNames()) {
            if (engine.rangeTask(task).schedule() != null) {
                firings(registry, engine, task, e -> e.rangeTask(task).schedule());
            }
        }
    }

    private static void firings(
            MeterRegistry registry,
            ScanEngine engine,
            String task,
            Function<ScanEngine, @Nullable ScheduleStatus> status) {
        counter(registry, engine, task, "started", status, ScheduleStatus::startedHere);
        counter(registry, engine, task, "skipped", status, ScheduleStatus::skippedHere);
    }

    private static void counter(
            MeterRegistry registry,
            ScanEngine engine,
            String task,
            String outcome,
            Function<ScanEngine, @Nullable ScheduleStatus> status,
            ToLongFunction<ScheduleStatus> count) {
        // read through the engine, not a lambda of its own: the registry holds the object weakly, the context the
        // engine
        FunctionCounter.builder("scan.schedule.firings", engine, e -> {
                    ScheduleStatus now = status.apply(e);
                    return now == null ? 0 : count.applyAsLong(now);
                })
                .description("Firings of the task's schedule this node handled: started the next run, or skipped"
                        + " because the run still ran")
                .tags("task", task, "outcome", outcome)
                .register(registry);
    }
}
