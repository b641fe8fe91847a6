package io.shardscan.actuate;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.shardscan.core.Backlog;
import io.shardscan.core.Outcome;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.Tier;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The scan engine's Micrometer meters, fed by the engine as its {@link ScanListener}:
 *
 * <ul>
 *   <li>{@code scan.rows} (counter; task, tier, outcome = done, failed, dead or skipped): rows handled;
 *   <li>{@code scan.handler.duration} (timer; task, outcome): handler time per row;
 *   <li>{@code scan.round.duration} (timer; task): rounds that handled rows, fetch to write-back;
 *   <li>{@code scan.backlog} (gauge; task, tier): pending rows as last counted, NaN before a count;
 *   <li>{@code scan.shards.owned} (gauge; task): shards this node holds a usable lease on;
 *   <li>{@code scan.lease.lost} (counter; task) and {@code scan.latch.timeouts} (counter; task).
 * </ul>
 *
 * <p>No tag carries a row id, and a scrape runs no query: the gauges read the engine's memory and
 * the backlog cache given to the constructor. The outcome is what the write-back records: a
 * failure that exhausts the last tier counts as {@code dead}.
 *
 * <p>Thread-safe; may be bound to several registries, each of which then gets every meter.
 */
public class ScanMetrics implements MeterBinder, ScanListener {

    private final Supplier<@Nullable ScanEngine> engine;
    private final Function<String, @Nullable Backlog> cachedBacklog;
    private final CopyOnWriteArrayList<MeterRegistry> registries = new CopyOnWriteArrayList<>();

    /**
     * Creates meters for the engine {@code engine} supplies when bound; it is asked for only then,
     * because the engine is built with this listener in it.
     *
     * @param engine the engine, or {@code null} when there is none
     * @param cachedBacklog a task's last counted backlog, or {@code null} when not counted yet; must not query
     */
    public ScanMetrics(Supplier<@Nullable ScanEngine> engine, Function<String, @Nullable Backlog> cachedBacklog) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.cachedBacklog = Objects.requireNonNull(cachedBacklog, "cachedBacklog");
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        if (!registries.addIfAbsent(registry)) {
            return;
        }
        ScanEngine scanEngine = engine.get();
        if (scanEngine == null) {
            return;
        }
        for (String task : scanEngine.taskNames()) {
            Gauge.builder(
                            "scan.shards.owned",
                            () -> scanEngine.task(task).ownedShards().size())
                    .description("Shards of the task this node holds a usable lease on")
                    .baseUnit("shards")
                    .tag("task", task)
                    .register(registry);
            for (Tier tier : scanEngine.task(task).definition().tiers()) {
                Gauge.builder("scan.backlog", () -> backlog(task, tier.label()))
                        .description("Pending rows of the tier as last counted, NaN before the first count")
                        .baseUnit(BaseUnits.ROWS)
                        .tags("task", task, "tier", tier.label())
                        .register(registry);
                for (Outcome.Kind kind : Outcome.Kind.values()) {
                    rows(registry, task, tier.label(), kind);
                }
            }
            for (Outcome.Kind kind : Outcome.Kind.values()) {
                handlerDuration(registry, task, kind);
            }
            roundDuration(registry, task);
            leaseLost(registry, task);
            latchTimeouts(registry, task);
        }
    }

    @Override
    public void rowHandled(String task, Tier tier, Outcome.Kind outcome, Duration took) {
        for (MeterRegistry registry : registries) {
            rows(registry, task, tier.label(), outcome).increment();
            handlerDuration(registry, task, outcome).record(took);
        }
    }

    @Override
    public void roundCompleted(String task, int shard, int rows, Duration took) {
        registries.forEach(registry -> roundDuration(registry, task).record(took));
    }

    @Override
    public void leaseLost(String task, int shard) {
        registries.forEach(registry -> leaseLost(registry, task).increment());
    }

    @Override
    public void latchTimedOut(String task, int shard) {
        registries.forEach(registry -> latchTimeouts(registry, task).increment());
    }

    /** The {@code outcome} tag of a kind: what happened to the row, as the handler said. */
    static String outcome(Outcome.Kind kind) {
        return switch (kind) {
            case DONE -> "done";
            case RETRY -> "failed";
            case SKIP -> "skipped";
            case DEAD -> "dead";
        };
    }

    private double backlog(String task, String tier) {
        Backlog backlog = cachedBacklog.apply(task);
        if (backlog == null) {
            return Double.NaN;
        }
        return backlog.tiers().stream()
                .filter(t -> t.retries().equals(tier))
                .mapToDouble(Backlog.TierBacklog::pending)
                .findFirst()
                .orElse(Double.NaN);
    }

    private static Counter rows(MeterRegistry registry, String task, String tier, Outcome.Kind kind) {
        return Counter.builder("scan.rows")
                .description("Rows handled, by what the handler said")
                .baseUnit(BaseUnits.ROWS)
                .tags(Tags.of("task", task, "tier", tier, "outcome", outcome(kind)))
                .register(registry);
    }

    private static Timer handlerDuration(MeterRegistry registry, String task, Outcome.Kind kind) {
        return Timer.builder("scan.handler.duration")
                .description("Time the handler took per row")
                .tags("task", task, "outcome", outcome(kind))
                .register(registry);
    }

    private static Timer roundDuration(MeterRegistry registry, String task) {
        return Timer.builder("scan.round.duration")
                .description("Time a round that handled rows took, from fetch to write-back")
                .tag("task", task)
                .register(registry);
    }

    private static Counter leaseLost(MeterRegistry registry, String task) {
        return Counter.builder("scan.lease.lost")
                .description("Leases this node lost through a refused renewal, a passed deadline or a newer fence")
                .baseUnit("leases")
                .tag("task", task)
                .register(registry);
    }

    private static Counter latchTimeouts(MeterRegistry registry, String task) {
        return Counter.builder("scan.latch.timeouts")
                .description("Rounds whose handlers were still running after the task's round timeout")
                .baseUnit("rounds")
                .tag("task", task)
                .register(registry);
    }
}
