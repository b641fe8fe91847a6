package io.shardscan.actuate;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.shardscan.core.Backlog;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.TaskStats;
import io.shardscan.core.spi.TaskRun;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.Tier;
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
 *   <li>{@code scan.backlog} (gauge; task, tier): pending rows as last counted, NaN before a count;
 *   <li>{@code scan.backlog.oldest.age} (gauge; task, tier; seconds): how long the tier's oldest due row
 *       has waited, the lag signal to alert on: its age at the last count plus the time since that count
 *       by the engine's clock, so it keeps growing while counts fail or a quiet task is not recounted
 *       (it may run ahead by up to the time since the count when the row was handled meanwhile); 0 while
 *       the tier had no due row at the count, NaN before a count;
 *   <li>{@code scan.shards.owned} (gauge; task): shards this node holds a usable lease on;
 *   <li>{@code scan.coordinator.reachable} and {@code scan.store.reachable} (gauges; task): 1 while
 *       the lease tick and the task's table answer, 0 while one does not (the health says which and
 *       why); an alert on 0 catches a node that stalls behind a lost database or Redis;
 *   <li>{@code scan.lease.lost} (counter; task) and {@code scan.latch.timeouts} (counter; task);
 *   <li>{@code scan.handler.timeouts} (counter; task): calls past the handler timeout, recorded failed;
 *   <li>{@code scan.handlers.abandoned} (gauge; task): threads still stuck in such calls;
 *   <li>{@code scan.writebacks.refused} (counter; task): write-backs the fence refused;
 *   <li>{@code scan.keys.waiting} (gauge; task): keys whose later rows wait for a failed row;
 *   <li>{@code scan.backlog.unfetchable} (gauge; task): pending rows no tier fetches, as last counted;
 *   <li>{@code scan.archived} (counter; task): finished rows this node archived (moved or deleted);
 *   <li>{@code scan.workers.held} (gauge; task): workers the task holds, with {@code scan.max-workers}
 *       of the node's budget;
 *   <li>{@code scan.run.done} (gauge; task), for a task that keeps runs ({@code run: until-empty}): 1
 *       when its current run is done, 0 while it runs, NaN before this node read it; {@code scan.run.id}
 *       (gauge; task): the current run's id;
 *   <li>for range tasks, the gauges of {@link RangeMetrics};
 *   <li>for scheduled tasks, {@code scan.schedule.firings} of {@link ScheduleMetrics};
 *   <li>{@code scan.budget.wait} (timer; task, aged = true or false): how long rounds waited for
 *       workers of the node's budget; aged rounds went first because their oldest row waited past
 *       the task's max-wait. Registered only with {@code scan.max-workers}.
 * </ul>
 *
 * <p>No tag carries a row id, and a scrape runs no query: the gauges read the engine's memory and
 * the backlog cache given to the constructor. The outcome is what the write-back records: a
 * failure that exhausts the last tier counts as {@code dead}.
 *
 * <p>Only meters whose name ends in what they count ({@code scan.rows}, {@code scan.backlog} in
 * rows), {@code scan.archived} (which reads {@code scan_archived_rows_total}) and the timers carry
 * a base unit: Prometheus appends the base unit to the name, so
 * {@code scan.shards.owned} with base unit {@code shards} would read {@code scan_shards_owned_shards}
 * and {@code scan.lease.lost} with {@code leases} {@code scan_lease_lost_leases_total}. The
 * Prometheus names are listed in docs/reference/metrics.md, which a test generates from the registry.
 *
 * <p>Thread-safe; may be bound to several registries, each of which then gets every meter.
 */
public class ScanMetrics implements MeterBinder, ScanListener {

    private final Supplier<@Nullable ScanEngine> engine;
    private final BacklogMetrics backlogs;
    private final CopyOnWriteArrayList<MeterRegistry> registries = new CopyOnWriteArrayList<>();

    /**
     * Creates meters for the engine {@code engine} supplies when bound; it is asked for only then,
     * because the engine is built with this listener in it.
     *
     * @param engine the engine, or {@code null} when there is none
     * @param cachedCount a task's last backlog count with the time {@code clock} read when it was
     *     taken, or {@code null} when not counted yet; must not query
     * @param clock the clock that stamped the counts, which ages them
     */
    public ScanMetrics(
            Supplier<@Nullable ScanEngine> engine,
            Function<String, ScanBacklogs.@Nullable Count> cachedCount,
            ScanClock clock) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.backlogs = new BacklogMetrics(cachedCount, clock);
    }

    /**
     * Creates meters for a backlog cache that does not say when it counted: the oldest ages are
     * those of the count, not aged since.
     *
     * @param engine the engine, or {@code null} when there is none
     * @param cachedBacklog a task's last counted backlog, or {@code null} when not counted yet; must not query
     */
    public ScanMetrics(Supplier<@Nullable ScanEngine> engine, Function<String, @Nullable Backlog> cachedBacklog) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.backlogs = BacklogMetrics.unaged(cachedBacklog);
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
                    .tag("task", task)
                    .register(registry);
            Gauge.builder(
                            "scan.coordinator.reachable",
                            () -> scanEngine.task(task).coordinatorReachable() ? 1 : 0)
                    .description("1 while the task's lease tick answers, 0 while the coordinator does not")
                    .tag("task", task)
                    .register(registry);
            Gauge.builder(
                            "scan.statement.running",
                            () -> scanEngine.task(task).longestStatement().toMillis() / 1000.0)
                    .description("How long the task's longest running statement (fetch, probe, write-back, fence)"
                            + " has been running; past scan.lease-ttl the health names it and a WARN logs it")
                    .baseUnit("seconds")
                    .tag("task", task)
                    .register(registry);
            Gauge.builder("scan.shards.conflict", () -> scanEngine.task(task).shardCountConflict() != null ? 1 : 0)
                    .description("1 while this node claims no shard because it runs another shard count than the"
                            + " nodes holding the task's leases, else 0")
                    .tag("task", task)
                    .register(registry);
            Gauge.builder(
                            "scan.shards.holding.back",
                            () -> scanEngine.task(task).rejoinHold() != null ? 1 : 0)
                    .description("1 while this node holds back after it dropped out of the task's members and came"
                            + " back (scan.rejoin-hold): it takes no shard the others hold, else 0")
                    .tag("task", task)
                    .register(registry);
            Gauge.builder(
                            "scan.store.reachable",
                            () -> scanEngine.task(task).stats().storeReachable() ? 1 : 0)
                    .description("1 while the task's table answers, 0 while the database is unreachable")
                    .tag("task", task)
                    .register(registry);
            for (Tier tier : scanEngine.task(task).definition().tiers()) {
                backlogs.bind(registry, task, tier.label());
                for (Outcome.Kind kind : Outcome.Kind.values()) {
                    rows(registry, task, tier.label(), kind);
                }
            }
            leaseLost(registry, task);
            latchTimeouts(registry, task);
            TaskStats stats = scanEngine.task(task).stats();
            FunctionCounter.builder("scan.handler.timeouts", stats, TaskStats::handlerTimeouts)
                    .description("Handler calls that ran past the task's handler timeout and were recorded failed")
                    .tag("task", task)
                    .register(registry);
            Gauge.builder("scan.handlers.abandoned", stats, TaskStats::abandonedThreads)
                    .description("Worker threads still stuck in a call past the handler timeout; each was replaced")
                    .tag("task", task)
                    .register(registry);
            FunctionCounter.builder("scan.writebacks.refused", stats, TaskStats::writeBacksRefused)
                    .description("Write-backs the fence refused because a newer owner had the shard")
                    .tag("task", task)
                    .register(registry);
            FunctionCounter.builder("scan.fence.foreign", stats, TaskStats::foreignFences)
                    .description("Shards fenced off by a node that is not a member of this node's coordinator"
                            + " (another cluster on the same database)")
                    .tag("task", task)
                    .register(registry);
            if (scanEngine.task(task).definition().endpoints() != null) {
                Gauge.builder(
                                "scan.endpoint.banned",
                                () -> scanEngine.task(task).bannedEndpoints().size())
                        .description("Endpoints of the task banned at level 2, as this node last read them")
                        .tag("task", task)
                        .register(registry);
                endpointTrips(registry, task, "1");
                endpointTrips(registry, task, "2");
            }
            Gauge.builder(
                            "scan.backlog.unfetchable",
                            () -> scanEngine.task(task).unfetchableRows().total())
                    .description("Pending rows no tier fetches for a NULL or negative retry count, or a failed row"
                            + " without updated-at, as last counted: they never run until fixed")
                    .baseUnit(BaseUnits.ROWS)
                    .tag("task", task)
                    .register(registry);
            Gauge.builder("scan.keys.waiting", () -> scanEngine.task(task).waitingKeys())
                    .description("Keys of this node's shards whose later rows wait for an earlier failed row")
                    .tag("task", task)
                    .register(registry);
            FunctionCounter.builder("scan.archived", stats, TaskStats::archived)
                    .description("Finished rows this node moved to the archive table or deleted")
                    .baseUnit(BaseUnits.ROWS)
                    .tag("task", task)
                    .register(registry);
            Gauge.builder("scan.workers.held", () -> scanEngine.task(task).workersHeld())
                    .description("Workers the task holds on this node; with scan.max-workers, of the node's budget")
                    .tag("task", task)
                    .register(registry);
            if (scanEngine.settings().maxWorkers() != null) {
                // without a budget no round waits for one: a timer that stays at zero would say it never did
                budgetWait(registry, task, false);
                budgetWait(registry, task, true);
            }
            if (scanEngine.task(task).runMode() != RunMode.FOREVER) {
                runs(registry, scanEngine, task);
            }
        }
        RangeMetrics.bind(registry, scanEngine);
        ScheduleMetrics.bind(registry, scanEngine);
    }

    private static void runs(MeterRegistry registry, ScanEngine engine, String task) {
        Gauge.builder("scan.run.done", () -> {
                    TaskRun run = engine.task(task).run();
                    return run == null ? Double.NaN : run.done() ? 1 : 0;
                })
                .description("1 when the task's current run is done, 0 while it runs, NaN before this node read it")
                .tag("task", task)
                .register(registry);
        Gauge.builder("scan.run.id", () -> {
                    TaskRun run = engine.task(task).run();
                    return run == null ? Double.NaN : run.id();
                })
                .description("The id of the task's current run, NaN before this node read it")
                .tag("task", task)
                .register(registry);
    }

    @Override
    public void rowHandled(String task, Tier tier, Outcome.Kind outcome, Duration took) {
        for (MeterRegistry registry : registries) {
            rows(registry, task, tier.label(), outcome).increment();
        }
    }

    @Override
    public void endpointTripped(String task, String endpoint, String reason) {
        registries.forEach(registry -> endpointTrips(registry, task, "1").increment());
    }

    @Override
    public void endpointBanned(String task, String endpoint, String reason) {
        registries.forEach(registry -> endpointTrips(registry, task, "2").increment());
    }

    /** Trips of level 1 (skipped on a node for a pass) and 2 (banned everywhere); no endpoint tag, endpoints are many. */
    private static Counter endpointTrips(MeterRegistry registry, String task, String level) {
        return Counter.builder("scan.endpoint.trips")
                .description(
                        "Endpoint blacklist trips: level 1 skips an endpoint on a node for a pass, level 2 bans it")
                .tags("task", task, "level", level)
                .register(registry);
    }

    @Override
    public void budgetWaited(String task, Duration waited, boolean aged) {
        registries.forEach(registry -> budgetWait(registry, task, aged).record(waited));
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
        return kind.tag();
    }

    private static Counter rows(MeterRegistry registry, String task, String tier, Outcome.Kind kind) {
        return Counter.builder("scan.rows")
                .description("Rows handled, by what the handler said")
                .baseUnit(BaseUnits.ROWS)
                .tags(Tags.of("task", task, "tier", tier, "outcome", outcome(kind)))
                .register(registry);
    }

    private static Timer budgetWait(MeterRegistry registry, String task, boolean aged) {
        return Timer.builder("scan.budget.wait")
                .description("How long rounds waited for workers of the node's budget (scan.max-workers); aged:"
                        + " served ahead of every priority because their oldest row waited past max-wait")
                .tags("task", task, "aged", Boolean.toString(aged))
                .register(registry);
    }

    private static Counter leaseLost(MeterRegistry registry, String task) {
        return Counter.builder("scan.lease.lost")
                .description("Leases this node lost through a refused renewal, a passed deadline or a newer fence")
                .tag("task", task)
                .register(registry);
    }

    private static Counter latchTimeouts(MeterRegistry registry, String task) {
        return Counter.builder("scan.latch.timeouts")
                .description("Rounds whose handlers were still running after the task's round timeout")
                .tag("task", task)
                .register(registry);
    }
}
