package io.shardscan.core;

import io.shardscan.core.spi.RangeFailure;
import io.shardscan.core.spi.RangeLease;
import io.shardscan.core.spi.RangeProgress;
import io.shardscan.core.spi.RangeStores;
import io.shardscan.core.spi.RangeTransactions;
import io.shardscan.core.spi.TaskRun;
import io.shardscan.core.task.InvalidTaskException;
import io.shardscan.core.task.RangeJob;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.RunRange;
import io.shardscan.core.task.ScanContext;
import io.shardscan.core.task.Schedule;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Runs one range task on this node: {@code workers} threads, each scanning one range at a time (a
 * range that stalled or whose owner died first, else a new one from the shared cursor), and a
 * control thread that keeps the heartbeat of the ranges held, follows the current run and reports
 * progress. A {@link RunMode#ONCE} run ends DONE, on exactly one node, when every range up to its id
 * snapshot is done. Every statement of theirs runs through {@link RangeStatements}: one cancelled for
 * running past the stores' statement timeout fails its range (or its tick) like any store failure, is
 * logged there once per kind and shows in the health.
 */
final class RangeRunner {

    private static final System.Logger log = ScanLogging.getLogger(RangeRunner.class);

    private final RangeJob job;
    private final RangeTask task;
    private final RangeStores stores;
    private final EngineSettings settings;
    private final ScanClock clock;
    private final RangeStatus status;
    private final RangeStatements statements;
    private final Map<Long, HeldRange> held = new ConcurrentHashMap<>();
    private final FailureLog failureLog = new FailureLog();
    private final RangeClaims claims;
    private final IdHorizon horizon;
    private final Object idle = new Object();
    private final ScheduledExecutorService control;
    private final ExecutorService workers;
    private final @Nullable ScheduleKeeper schedule;
    private volatile boolean running;
    private volatile TaskRun run;
    private int quietTicks;
    private final AtomicLong ticks = new AtomicLong();

    private static final int QUIET_TICKS = 5;

    RangeRunner(RangeJob job, RangeStores stores, EngineSettings settings, ScanClock clock) {
        if (job.transactional() && stores.transactions() == null) {
            throw new InvalidTaskException("scan.tasks." + job.task().name() + ": @ScanTask(\""
                    + job.task().name()
                    + "\", transactional = true) commits each row with its range's position in one transaction,"
                    + " which these range stores cannot: their RangeStores has no RangeTransactions (a RangeStores"
                    + " bean of the application's built without one). Remove that bean, so that Shardscan builds its"
                    + " JDBC range stores on its DataSource, or build it withTransactions(new JdbcRangeTransactions("
                    + "<the DataSource of its ledger and of the handler's statements>, <its transaction manager>,"
                    + " ...)); or remove transactional = true");
        }
        this.job = job;
        this.task = job.task();
        this.statements = new RangeStatements(task.name(), clock);
        this.stores = WatchedRangeStores.of(stores, statements);
        this.settings = settings;
        this.clock = clock;
        this.status = new RangeStatus(task, this.stores, clock);
        this.claims = new RangeClaims(task, this.stores, settings, clock, () -> running);
        this.horizon = new IdHorizon(task.followGrace());
        ScheduledThreadPoolExecutor control =
                new ScheduledThreadPoolExecutor(1, Threads.named("scan-" + task.name() + "-ranges-"));
        control.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.control = control;
        this.workers = Executors.newFixedThreadPool(
                task.definition().rounds().workers(),
                settings.workerThreads().factory(task.name(), "scan-" + task.name() + "-range-worker-"));
        Schedule firings = task.schedule();
        this.schedule = firings == null
                ? null
                : new ScheduleKeeper(
                        task.definition(),
                        firings,
                        settings.nodeId(),
                        clock,
                        () -> new RunRange(
                                1, 0, task.rangeSize(), this.stores.cursor().kind()),
                        this::snapshot);
    }

    /** The task's schedule as this node knows it; {@code null} for a task without one. */
    @Nullable
    ScheduleStatus schedule() {
        return schedule == null ? null : schedule.status();
    }

    RangeTask task() {
        return task;
    }

    /** The transactions each try of a unit runs in, when the task is transactional. */
    private @Nullable RangeTransactions transactions() {
        return job.transactional() ? stores.transactions() : null;
    }

    RangeStatus status() {
        return status;
    }

    /** The run this node follows now. */
    TaskRun run() {
        return run;
    }

    /** How many heartbeats the control thread began, so a test counts statements per tick, not per second. */
    long ticks() {
        return ticks.get();
    }

    /** The statements of this task's workers and control thread, with their timeouts. */
    RangeStatements statements() {
        return statements;
    }

    void start() {
        if (schedule != null) {
            // makes run 0 when the task never ran, so that its first run waits for its first firing
            schedule.tick(stores.runs(), null);
        }
        run = current();
        status.follow(run);
        running = true;
        RunRange range = range(run);
        log.log(
                Level.INFO,
                "Task " + task.name() + ": range mode, run " + run.id() + (run.done() ? " (DONE)" : "") + " over ids "
                        + range.lowId() + "-" + (task.run() == RunMode.ONCE ? range.highId() : "…") + ", ranges of "
                        + range.rangeSize() + " ids, cursor " + stores.cursor().kind());
        warnIfDrifted(run);
        control.scheduleWithFixedDelay(this::tick, 0, settings.renewInterval().toMillis(), TimeUnit.MILLISECONDS);
        for (int i = 0; i < task.definition().rounds().workers(); i++) {
            workers.execute(this::work);
        }
    }

    /** Stops claiming; running scans commit what they handled; waits up to the shutdown timeout. */
    void stop() {
        running = false;
        wakeUp();
        control.shutdown();
        workers.shutdown();
        try {
            if (!workers.awaitTermination(settings.shutdownTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                log.log(
                        Level.WARNING,
                        "Task " + task.name() + ": gave up after " + settings.shutdownTimeout() + " on ranges "
                                + held.keySet() + "; their new owners run again what was not committed");
                workers.shutdownNow();
            }
            control.awaitTermination(settings.renewInterval().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        held.clear();
    }

    /**
     * Starts the next run unless the current one still runs.
     *
     * @return the run that runs now
     */
    TaskRun restart() {
        TaskRun current = current();
        if (!current.done()) {
            return current;
        }
        TaskRun next = stores.runs().start(task.definition(), current.id(), settings.nodeId(), clock.now(), snapshot());
        RunRange range = range(next);
        log.log(
                Level.INFO,
                "Task " + task.name() + ": run " + next.id() + " started by node " + next.startedBy() + " over ids "
                        + range.lowId() + "-" + range.highId() + ", ranges of " + range.rangeSize() + " ids");
        follow(next);
        return next;
    }

    /**
     * The task's current run. The first one, and one after a run without ids (the task had a status
     * column before), starts here over the table's ids now, with the configured range size.
     */
    private TaskRun current() {
        TaskRun current = stores.runs().current(task.definition());
        if (current == null) {
            return stores.runs().startFirst(task.definition(), settings.nodeId(), clock.now(), snapshot());
        }
        if (current.range() == null) {
            return stores.runs().start(task.definition(), current.id(), settings.nodeId(), clock.now(), snapshot());
        }
        return current;
    }

    private void warnIfDrifted(TaskRun joined) {
        RunRangeDrift.warnings(task, joined, stores.cursor().kind()).forEach(w -> log.log(Level.WARNING, w));
    }

    /** The ids of a run starting now: the table's lowest and highest id, the configured range size and this cursor. */
    private RunRange snapshot() {
        long low = stores.table().minId(task);
        long high = stores.table().maxId(task);
        return low == Long.MAX_VALUE
                ? new RunRange(1, 0, task.rangeSize(), stores.cursor().kind())
                : new RunRange(low, high, task.rangeSize(), stores.cursor().kind());
    }

    /** The ids and range size of a run of this task; every run of a range task has them. */
    static RunRange range(TaskRun run) {
        RunRange range = run.range();
        if (range == null) {
            throw new IllegalStateException("run " + run.id() + " has no id range: it is a status-column task's");
        }
        return range;
    }

    /**
     * Runs the recorded failures of the current run again on the calling thread, each taken by one
     * node only; rows that fail again are recorded again.
     *
     * @return how many rows ran
     */
    int requeue(int limit) {
        TaskRun current = run;
        List<RangeFailure> failed = stores.failures().recent(task.name(), current.id(), limit);
        RangeHandling handling = new RangeHandling(task, job.handler(), clock, failureLog, transactions());
        int ran = 0;
        for (RangeFailure failure : failed) {
            if (!stores.failures().take(task.name(), current.id(), failure.id())) {
                continue;
            }
            for (Row row : stores.table().rows(task, List.of(failure.id()))) {
                ran++;
                for (RangeFailure again : handling.handle(
                        List.of(row), attempt -> new ScanContext(task.name(), settings.nodeId(), -1, 0, attempt))) {
                    stores.failures().record(task.name(), current.id(), again);
                }
            }
        }
        return ran;
    }

    private void follow(TaskRun next) {
        if (next.id() != run.id() && !next.done()) {
            warnIfDrifted(next);
        }
        run = next;
        status.follow(next);
        wakeUp();
    }

    /**
     * One heartbeat: renews the ranges held here, follows the task's run and reports progress. While
     * the run is DONE and no range is held here, only every {@value #QUIET_TICKS}th tick reads the run
     * and reports progress (a restart on another node is seen that much later, one started here at once),
     * so a finished job costs the database two statements per {@value #QUIET_TICKS} renew intervals.
     */
    private void tick() {
        ticks.incrementAndGet();
        if (schedule != null) {
            fire(schedule);
        }
        if (run.done() && held.isEmpty() && quietTicks++ % QUIET_TICKS != 0) {
            return;
        }
        try {
            TaskRun current = run;
            Map<Long, Long> epochs = new java.util.HashMap<>();
            held.forEach((start, range) -> {
                if (range.run == current.id()) {
                    epochs.put(start, range.lease.epoch());
                }
            });
            if (!epochs.isEmpty()) {
                List<Long> kept = stores.ledger().heartbeat(task.name(), current.id(), settings.nodeId(), epochs);
                epochs.keySet().stream().filter(start -> !kept.contains(start)).forEach(start -> {
                    HeldRange range = held.get(start);
                    if (range != null) {
                        range.markLost();
                    }
                });
            }
            TaskRun latest = stores.runs().current(task.definition());
            if (latest != null
                    && latest.range() != null
                    && (latest.id() != current.id() || latest.done() != current.done())) {
                follow(latest);
            }
            status.report(run);
        } catch (StatementTimeout e) {
            // logged by RangeStatements, once per kind
        } catch (RuntimeException e) {
            log.log(Level.WARNING, "Task " + task.name() + ": range heartbeat failed: " + e.getMessage());
        }
    }

    /** Hands on a firing of the schedule that is due; a run it started (here or on another node) is followed at once. */
    private void fire(ScheduleKeeper schedule) {
        try {
            if (schedule.tick(stores.runs(), run)) {
                TaskRun next = current();
                if (next.id() != run.id()) {
                    RunRange range = range(next);
                    log.log(
                            Level.INFO,
                            "Task " + task.name() + ": run " + next.id() + " started by node " + next.startedBy()
                                    + " over ids " + range.lowId() + "-" + range.highId() + ", ranges of "
                                    + range.rangeSize() + " ids");
                    follow(next);
                }
            }
        } catch (StatementTimeout e) {
            // logged by RangeStatements, once per kind; the firing is handed on at the next tick
        } catch (RuntimeException e) {
            log.log(
                    Level.WARNING,
                    "Task " + task.name() + ": its schedule's firing failed (" + e.getMessage()
                            + "); the next tick tries again");
        }
    }

    private void work() {
        RangeScan scan = new RangeScan(
                task,
                stores,
                new RangeHandling(task, job.handler(), clock, failureLog, transactions()),
                clock,
                settings.nodeId(),
                () -> running,
                this::pause,
                status::handled,
                horizon);
        while (running) {
            TaskRun current = run;
            try {
                if (current.done()) {
                    pause(settings.renewInterval());
                    continue;
                }
                Optional<RangeLease> lease = claims.acquire(current);
                if (lease.isEmpty()) {
                    RangeProgress last = claims.finishIfCovered(current);
                    if (last != null) {
                        log.log(
                                Level.INFO,
                                "Task " + task.name() + ": run " + current.id() + " DONE: " + last.processed()
                                        + " rows processed, " + last.failed() + " failed, " + last.rangesDone()
                                        + " ranges, in "
                                        + RangeStatus.human(Duration.between(current.startedAt(), clock.now())));
                        status.finished();
                        follow(current());
                    }
                    pause(task.idleInterval());
                    continue;
                }
                HeldRange range = new HeldRange(current.id(), lease.get());
                held.put(lease.get().start(), range);
                try {
                    scan.scan(range, range(current));
                } finally {
                    held.remove(lease.get().start(), range);
                }
            } catch (StatementTimeout e) {
                // logged by RangeStatements, once per kind; the range is dropped as after any failure
                pause(task.idleInterval());
            } catch (RuntimeException | Error e) {
                // an Error too: escaping, it would end this worker with no line of ours and one worker fewer
                log.log(
                        e instanceof Error ? Level.ERROR : Level.WARNING,
                        "Task " + task.name() + ": range scan failed (" + e
                                + "); what it did not commit runs again on the range's next owner");
                pause(task.idleInterval());
            }
        }
    }

    private void pause(Duration duration) {
        synchronized (idle) {
            if (!running) {
                return;
            }
            try {
                idle.wait(Math.max(1, duration.toMillis()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void wakeUp() {
        synchronized (idle) {
            idle.notifyAll();
        }
    }
}
