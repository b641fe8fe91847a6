package io.shardscan.actuate;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.spi.RangeSnapshot;
import java.util.function.ToDoubleFunction;

/**
 * The gauges of range tasks ({@code mode: range}), all tagged with the task and read from the run's
 * last snapshot, so a scrape runs no query:
 *
 * <ul>
 *   <li>{@code scan.run.done} and {@code scan.run.id}: as for a status task that keeps runs;
 *   <li>{@code scan.range.processed} and {@code scan.range.failed}: rows of the current run handled
 *       (failed ones included) and recorded failed, by every node;
 *   <li>{@code scan.range.percent}: the share of the id space behind committed positions, 0–100;
 *   <li>{@code scan.range.rate}: rows per second over the last 10 s, every node together;
 *   <li>{@code scan.range.eta}: seconds left at that pace, NaN when done or unknown.
 * </ul>
 */
final class RangeMetrics {

    private RangeMetrics() {}

    static void bind(MeterRegistry registry, ScanEngine engine) {
        for (String task : engine.rangeTaskNames()) {
            gauge(
                    registry,
                    engine,
                    task,
                    "scan.run.done",
                    "1 when the task's current run is done, 0 while it runs",
                    s -> s.run().done() ? 1 : 0);
            gauge(registry, engine, task, "scan.run.id", "The id of the task's current run", s -> s.run()
                    .id());
            gauge(
                    registry,
                    engine,
                    task,
                    "scan.range.processed",
                    "Rows of the current run handled by every node, failed ones included",
                    s -> s.progress().processed());
            gauge(
                    registry,
                    engine,
                    task,
                    "scan.range.failed",
                    "Rows of the current run recorded as failed",
                    s -> s.progress().failed());
            gauge(
                    registry,
                    engine,
                    task,
                    "scan.range.percent",
                    "The share of the run's id space behind committed positions, 0 to 100",
                    RangeSnapshot::percent);
            gauge(
                    registry,
                    engine,
                    task,
                    "scan.range.rate",
                    "Rows per second over the last 10 s, every node together",
                    RangeSnapshot::rowsPerSecond);
            gauge(
                    registry,
                    engine,
                    task,
                    "scan.range.eta",
                    "Seconds the rest of the id space takes at the recent pace, NaN when done or unknown",
                    s -> s.eta() == null ? Double.NaN : s.eta().toSeconds());
        }
    }

    private static void gauge(
            MeterRegistry registry,
            ScanEngine engine,
            String task,
            String name,
            String description,
            ToDoubleFunction<RangeSnapshot> value) {
        Gauge.builder(name, () -> value.applyAsDouble(engine.rangeTask(task).snapshot()))
                .description(description)
                .tag("task", task)
                .register(registry);
    }
}
