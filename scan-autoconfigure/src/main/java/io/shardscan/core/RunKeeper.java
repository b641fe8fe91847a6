package io.shardscan.core;

import io.shardscan.core.spi.RunCounts;
import io.shardscan.core.spi.TaskRun;
import io.shardscan.core.spi.TaskRuns;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.Schedule;
import io.shardscan.core.task.TaskDefinition;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * A task's run on this node, for a task whose {@link RunMode} keeps runs (every mode but
 * {@link RunMode#FOREVER}): reads the current run at each lease tick (starting the first one when
 * the task never ran), lets rounds start only while it runs, and ends it once nothing is left.
 *
 * <pre>
 *   (none) → RUNNING            the task's first start, on whichever node reads it first
 *   (none) → DONE               with a schedule instead: run 0, in which nothing ran ({@link ScheduleKeeper})
 *   RUNNING → DONE              nothing left ({@link TaskStore#anyLeft}): one conditional write, one node
 *   DONE → RUNNING              a firing of the schedule: the next id, on one node; the others follow
 *   RUNNING | DONE → RUNNING    {@link #start}: a new run with the next id, on every node at its next tick
 * </pre>
 *
 * While a run runs, each tick also reads its counts so far (a sum over the task's fence rows), so
 * the endpoints show every node's progress without a query of their own. A node only asks the store whether anything is left when its own part is quiet (no row handled
 * since its last tick and none in a handler), at most once per first-tier interval; any node may
 * end the run, because the store answers for every shard. Rows still pending (in a handler on
 * another node, waiting in a retry tier, held back behind their key, of a banned endpoint) keep the
 * run going. A restart reads a {@code DONE} run and stays done. Thread-safe: {@link #tick} runs on the
 * lease thread; the rest may be called from any thread.
 */
final class RunKeeper {

    private static final System.Logger log = ScanLogging.getLogger(RunKeeper.class);

    private final TaskContext context;
    private final RunMode mode;
    private final Runnable trigger;
    private final @Nullable ScheduleKeeper schedule;
    private volatile @Nullable TaskRun run;
    private long lastHandled = -1;
    private long nextCheckNanos;

    /**
     * @param trigger makes every owned shard due now, for a run that starts while this node holds shards
     */
    RunKeeper(TaskContext context, Runnable trigger) {
        this.context = context;
        this.mode = context.definition().run();
        this.trigger = trigger;
        Schedule firings = context.definition().schedule();
        this.schedule = firings == null
                ? null
                : new ScheduleKeeper(
                        context.definition(), firings, context.nodeId(), context.clock(), () -> null, () -> null);
    }

    /** The task's schedule as this node knows it; {@code null} for a task without one. */
    @Nullable
    ScheduleStatus schedule() {
        return schedule == null ? null : schedule.status();
    }

    /** Whether this task keeps runs at all. */
    boolean keepsRuns() {
        return mode != RunMode.FOREVER;
    }

    /** Whether the run lets rounds start: always for a forever task, else only while its current run runs. */
    boolean dispatching() {
        TaskRun current = run;
        return !keepsRuns() || (current != null && !current.done());
    }

    /** Whether the current run is done, as this node last read it. */
    boolean done() {
        TaskRun current = run;
        return current != null && current.done();
    }

    /** The run write-backs count for: the current run's id, 0 for a forever task or before the first read. */
    long countingRun() {
        TaskRun current = run;
        return current == null ? 0 : current.id();
    }

    /** How long the current run ran: until its end, or until now; zero when there is none. */
    Duration duration() {
        TaskRun current = run;
        return current == null
                ? Duration.ZERO
                : current.duration(context.clock().now());
    }

    /** The current run as this node last read it; {@code null} for a forever task or before the first read. */
    @Nullable
    TaskRun last() {
        return run;
    }

    /**
     * The current run read now, with its counts so far while it runs; one or two reads of the store.
     *
     * @return {@code null} for a forever task or one that never ran
     */
    @Nullable
    TaskRun read() {
        if (!keepsRuns()) {
            return null;
        }
        TaskRuns runs = runs();
        TaskRun current = runs.current(context.definition());
        if (current == null || current.done()) {
            return current;
        }
        return current.withCounts(runs.counted(context.definition(), current.id()));
    }

    /**
     * One lease tick: hands on a firing of the task's schedule that is due ({@link ScheduleKeeper}),
     * reads the current run (starting the first when there is none and the task has no schedule),
     * follows a run started elsewhere, and ends the running one when this node is quiet and the store
     * says nothing is left. While the store cannot be read the last run read holds.
     */
    void tick() {
        if (!keepsRuns()) {
            return;
        }
        try {
            TaskRuns runs = runs();
            if (schedule != null) {
                // makes run 0 at the first tick, so the read below finds a run
                schedule.tick(runs, run);
            }
            TaskRun current = runs.current(context.definition());
            if (current == null && schedule != null) {
                return;
            }
            if (current == null) {
                current = runs.startFirst(
                        context.definition(), context.nodeId(), context.clock().now(), null);
            }
            follow(current);
            if (!current.done()) {
                finishIfEmpty(current);
            }
        } catch (RuntimeException e) {
            log.log(Level.DEBUG, () -> "Task " + context.name() + ": cannot read its run; keeping " + run + ": " + e);
        }
    }

    /**
     * Starts a new run on every node: here at once, on the others at their next lease tick.
     *
     * @return the run started
     * @throws IllegalStateException for a forever task, which has no runs
     */
    TaskRun start() {
        if (!keepsRuns()) {
            throw new IllegalStateException("task " + context.name() + " runs forever (scan.tasks." + context.name()
                    + ".run), so it has no run to start; set run: until-empty to end it when its table is empty");
        }
        TaskRun current = runs().current(context.definition());
        TaskRun started = runs().start(
                        context.definition(),
                        current == null ? 0 : current.id(),
                        context.nodeId(),
                        context.clock().now(),
                        null);
        synchronized (this) {
            run = started;
            lastHandled = -1;
        }
        log.log(
                Level.INFO,
                "Task " + context.name() + ": run " + started.id() + " started on node " + context.nodeId()
                        + "; every node joins it at its next lease tick");
        trigger.run();
        return started;
    }

    /** Takes {@code current} as the run; a run newer than the one known makes every owned shard due. */
    private synchronized void follow(TaskRun current) {
        TaskRun known = run;
        if (known != null && current.id() < known.id()) {
            // read before start() on another thread made a newer run current here: going back to the old
            // (done) run would stop the rounds and count their write-backs to it (RunEndpointTests saw
            // run 2 end with 14 of its 20 rows)
            return;
        }
        run = current;
        if (known == null) {
            log.log(
                    Level.INFO,
                    "Task " + context.name() + ": run " + current.id() + " is "
                            + current.state().name().toLowerCase(Locale.ROOT)
                            + (!current.done()
                                    ? ""
                                    : schedule != null
                                            ? "; this node starts no round until its next firing starts a run"
                                            : "; this node starts no round until it is started again"));
        } else if (known.id() == current.id() && !known.done() && current.done()) {
            log.log(
                    Level.INFO,
                    "Task " + context.name() + ": run " + current.id() + " ended on node " + current.endedBy()
                            + "; this node starts no round until the task is started again");
        } else if (known.id() != current.id() && !current.done()) {
            log.log(
                    Level.INFO,
                    "Task " + context.name() + ": run " + current.id() + " started by node " + current.startedBy()
                            + "; joining it");
            lastHandled = -1;
            trigger.run();
        }
    }

    private void finishIfEmpty(TaskRun current) {
        TaskStats stats = context.stats();
        long handled = stats.processed() + stats.failed() + stats.dead();
        boolean quiet = handled == lastHandled && stats.inFlight() == 0;
        lastHandled = handled;
        long now = context.clock().nanos();
        if (!quiet || now - nextCheckNanos < 0) {
            return;
        }
        nextCheckNanos = now + context.definition().tiers().get(0).interval().toNanos();
        TaskDefinition task = context.definition();
        if (context.store().control().anyLeft(task)) {
            return;
        }
        TaskRuns runs = runs();
        RunCounts counts = runs.counted(task, current.id());
        Instant at = context.clock().now();
        if (!runs.finish(task, current.id(), counts, context.nodeId(), at)) {
            // another node ended it, or a new run started: read what it is now
            TaskRun latest = runs.current(task);
            if (latest != null) {
                follow(latest);
            }
            return;
        }
        TaskRun done = new TaskRun(
                current.id(),
                TaskRun.State.DONE,
                current.startedAt(),
                current.startedBy(),
                at,
                context.nodeId(),
                counts);
        synchronized (this) {
            if (run != null && run.id() == done.id()) {
                run = done;
            }
        }
        log.log(Level.INFO, endLine(done));
        context.listener().runEnded(context.name(), done);
    }

    /** The line that says a run ended, with what it did and how to start it again. */
    String endLine(TaskRun done) {
        Duration took = done.duration(Instant.EPOCH);
        String name = context.name();
        return "Task " + name + " done: " + done.counts().processed() + " processed, "
                + done.counts().dead()
                + " dead in " + String.format(Locale.ROOT, "%.1f s", took.toMillis() / 1000.0) + " (run " + done.id()
                + ", " + done.counts().failed() + " failed attempts retried); start it again with ScanTasks.start(\""
                + name + "\") or POST /actuator/scan/" + name + " {\"action\": \"start\"}";
    }

    private TaskRuns runs() {
        TaskRuns runs = context.store().runs();
        if (runs == null) {
            throw new IllegalStateException("the task store keeps no runs, which scan.tasks." + context.name()
                    + ".run: " + mode.property() + " needs");
        }
        return runs;
    }
}
