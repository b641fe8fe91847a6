package io.shardscan.core;

import io.shardscan.core.spi.BacklogCounts;
import io.shardscan.core.spi.EndpointBan;
import io.shardscan.core.spi.FailureGroup;
import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.spi.Member;
import io.shardscan.core.spi.Requeue;
import io.shardscan.core.spi.ShardCountConflict;
import io.shardscan.core.spi.TaskRun;
import io.shardscan.core.spi.UnfetchableRows;
import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.TaskDefinition;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/** One task as seen from this node, for endpoints, health and tests; steers it too. Thread-safe. */
public final class TaskView {

    private static final System.Logger log = ScanLogging.getLogger(TaskView.class);

    private final TaskRunner runner;
    /** The engine's wake path ({@link ScanEngine#wake}): reaches the owners of shards held elsewhere. */
    private final Consumer<Collection<Integer>> wake;

    TaskView(TaskRunner runner, Consumer<Collection<Integer>> wake) {
        this.runner = runner;
        this.wake = wake;
    }

    /** What the task's handler failures mean, as its engine's settings made it (for the tests of that wiring). */
    HandlerFailures handlerFailures() {
        return runner.context().handlerFailures();
    }

    /** The task's failure log: which failures were logged and how many since (for the engine's tests). */
    FailureLog failures() {
        return runner.context().failures();
    }

    public TaskDefinition definition() {
        return runner.context().definition();
    }

    public TaskStats stats() {
        return runner.context().stats();
    }

    /** Shards this node holds a usable lease on, to their epochs, ascending. */
    public Map<Integer, Long> ownedShards() {
        return runner.ownedShards();
    }

    /** Keys of this node's shards whose later rows wait for an earlier failed row. */
    public int waitingKeys() {
        return runner.waitingKeys();
    }

    /** Whether the task takes its workers from this node's worker budget ({@code scan.max-workers}). */
    public boolean budgeted() {
        return runner.context().budget() != null;
    }

    /** Workers the task holds now (its lanes, and rounds about to start them), at most its {@code workers}. */
    public int workersHeld() {
        TaskContext context = runner.context();
        return context.definition().rounds().workers() - context.workerPermits().availablePermits();
    }

    /**
     * How long the task's longest-waiting round has waited for workers of this node's budget; zero
     * when none waits, or without {@code scan.max-workers}.
     */
    public Duration longestBudgetWait() {
        WorkerBudget budget = runner.context().budget();
        return budget == null ? Duration.ZERO : budget.longestWait(runner.context());
    }

    /** The live members as of the last heartbeat. */
    public List<Member> members() {
        return runner.members();
    }

    /** What a task is doing on this node. */
    public enum State {
        /** Claiming shards and running rounds. */
        RUNNING,
        /** Holding its shards but starting no rounds. */
        PAUSED,
        /** Its run ended ({@code run: until-empty}): holding its shards, starting no rounds until a new run starts. */
        DONE,
        /** Not started, or stopped. */
        STOPPED
    }

    public State state() {
        if (!runner.isRunning()) {
            return State.STOPPED;
        }
        if (runner.runs().done()) {
            return State.DONE;
        }
        return runner.isPaused() ? State.PAUSED : State.RUNNING;
    }

    /** How long a run of the task lasts, as configured. */
    public RunMode runMode() {
        return runner.context().definition().run();
    }

    /**
     * The task's current run as this node read it at its last lease tick, without a call of its own.
     *
     * @return {@code null} for a task that runs forever, or before the first lease tick
     */
    public @Nullable TaskRun run() {
        return runner.runs().last();
    }

    /** How long the task's current run ran: until its end, or until now; zero for a task that runs forever. */
    public Duration runDuration() {
        return runner.runs().duration();
    }

    /**
     * The task's current run read from the store now, with its counts so far while it runs.
     *
     * @return {@code null} for a task that runs forever
     */
    public @Nullable TaskRun readRun() {
        return runner.runs().read();
    }

    /**
     * The task's schedule, its next firing and its last firing as this node last read them
     * ({@code scan.tasks.<name>.schedule}); runs no statement.
     *
     * @return {@code null} for a task without a schedule
     */
    public @Nullable ScheduleStatus schedule() {
        return runner.runs().schedule();
    }

    /**
     * Starts a new run of the task, with the next run id, on every node: here at once, on the others at
     * their next lease tick; each scans its shards at once.
     *
     * @return the run started
     * @throws IllegalStateException for a task that runs forever, which has no runs
     */
    public TaskRun start() {
        return runner.runs().start();
    }

    /** The kind of coordinator, e.g. {@code redis}, {@code jdbc} or {@code static}. */
    public String coordinatorKind() {
        return runner.coordinatorKind();
    }

    /** Every shard's lease as the coordinator showed it at the last lease tick; no call of its own. */
    public List<LeaseInfo> leases() {
        return runner.leases();
    }

    /**
     * The pending rows no tier fetches for what the engine's columns hold, as the last backlog count
     * found them; no query of its own. {@link UnfetchableRows#NONE} before the first count.
     */
    public UnfetchableRows unfetchableRows() {
        BacklogCounts last = runner.backlogWatch().last();
        return last == null ? UnfetchableRows.NONE : last.unfetchable();
    }

    /** Counts the backlog now, with the store's queries; callers cache it. */
    public Backlog countBacklog() {
        TaskContext context = runner.context();
        long activity = activity(context);
        // one count per table: a task of one table has one, a sharded task's are summed
        Map<String, BacklogCounts> byTable = context.store().admin().countBacklogByTable(context.definition());
        BacklogCounts counts =
                byTable.values().stream().reduce(BacklogCounts::plus).orElseThrow();
        BacklogCounts before =
                runner.backlogWatch().counted(counts, activity, context.clock().nanos());
        if (counts.outsideShards() > 0 && (before == null || before.outsideShards() == 0)) {
            warnOutsideShards(context.definition(), counts.outsideShards());
        }
        if (before != null) {
            warnAppeared(context.definition(), before.unfetchable(), counts.unfetchable());
        }
        // aged by the store's clock, which stamped the rows: a node whose clock is off shows true ages
        Backlog backlog = Backlog.of(
                context.definition(),
                counts,
                counts.countedAt() != null
                        ? counts.countedAt()
                        : context.clock().now());
        return context.definition().tables() == null ? backlog : backlog.withTables(byTable);
    }

    /**
     * Rows no tier fetches that were not there at the last count: written after startup, whose check
     * warned of those there were then. Warned once per kind as it appears, not at every count.
     */
    private static void warnAppeared(TaskDefinition task, UnfetchableRows before, UnfetchableRows now) {
        UnfetchableRows appeared = new UnfetchableRows(
                before.nullRetries() == 0 ? now.nullRetries() : 0,
                before.negativeRetries() == 0 ? now.negativeRetries() : 0,
                before.failedWithoutUpdatedAt() == 0 ? now.failedWithoutUpdatedAt() : 0);
        appeared.warnings(task, List.of()).forEach(line -> log.log(System.Logger.Level.WARNING, line));
    }

    /**
     * Rows the startup check could not see: inserted later by a writer that computes the shard
     * itself, or left by a column redefined under a running node. Warned when they appear, not at
     * every count.
     */
    private static void warnOutsideShards(TaskDefinition task, long rows) {
        String property = "scan.tasks." + task.name() + ".shards";
        log.log(
                System.Logger.Level.WARNING,
                "scan.tasks." + task.name() + ": " + rows + " pending rows of " + task.table() + " have a "
                        + task.columns().shard() + " outside 0.." + (task.shards() - 1) + ", the shards of " + property
                        + "=" + task.shards() + ": no shard fetches them, so they never run (/actuator/scan counts"
                        + " them as outsideShards). The column gives rows another number of shards than the task:"
                        + " set " + property + " to the column's modulus, or redefine the column for "
                        + task.shards() + " shards (a restart's startup check names the statement)");
    }

    /**
     * Counts the backlog when it may have changed since the last count, for a caller that counts
     * every {@code refresh}: see "Idle cost" in docs/guides/how-it-runs.md for when that is.
     *
     * @return the new count; {@code null} when none was due, so the last one stands
     */
    public @Nullable Backlog countBacklogIfChanged(Duration refresh) {
        TaskContext context = runner.context();
        if (!runner.backlogWatch().due(activity(context), context.clock().nanos(), refresh)) {
            return null;
        }
        return countBacklog();
    }

    /** What this node did that may change the backlog: rows handled, and idle shards a probe found a row in. */
    private static long activity(TaskContext context) {
        TaskStats stats = context.stats();
        return stats.processed() + stats.failed() + stats.dead() + stats.probeHits();
    }

    /**
     * Puts every dead row back to pending with retry count 0 and scans at once: this node its shards,
     * the other nodes theirs through the wake channel (see {@link #requeue(Requeue)}).
     *
     * @return how many rows were requeued
     */
    public int requeueDead() {
        return requeue(Requeue.all(true));
    }

    /**
     * One page of the task's dead or failed rows grouped by last error, read from the store now (see
     * {@link io.shardscan.core.spi.TaskAdmin#failureGroups}).
     */
    public List<FailureGroup> failureGroups(boolean dead, int page, int size, int examples) {
        TaskContext context = runner.context();
        return context.store().admin().failureGroups(context.definition(), dead, page, size, examples);
    }

    /**
     * Puts the selected failed or dead rows back to pending with retry count 0 and scans at once: this
     * node scans every shard it holds, and the shards held elsewhere are woken on their owners through
     * the engine's wake channel (without one, they wait for their owner's next tier-0 poll). Every
     * requeue (dashboard, endpoint, code) goes through here, so this is the one place of that rule.
     * Its ids may be whole numbers or their decimal text, as {@link #readRow} takes them; the store
     * gets them as {@code Long}s.
     *
     * @return how many rows were requeued
     * @throws IllegalArgumentException when an id is not one of this task's, naming it and what the
     *     task's ids look like; nothing is requeued then
     */
    public int requeue(Requeue which) {
        TaskContext context = runner.context();
        if (!which.ids().isEmpty()) {
            which = Requeue.rows(which.dead(), RowIds.parse(context.definition(), which.ids()));
        }
        int requeued = which.equals(Requeue.all(true))
                ? context.store().admin().requeueDead(context.definition())
                : context.store().admin().requeue(context.definition(), which);
        runner.trigger();
        if (requeued > 0) {
            wake.accept(ShardKeys.ofRequeue(context.definition(), which));
        }
        return requeued;
    }

    /**
     * One of the task's rows with every column, read from the store now (see {@link io.shardscan.core.spi.TaskAdmin#readRow}).
     *
     * @param id the row's id: a whole number ({@code Long}, {@code Integer}, an integral {@code
     *     BigInteger} or {@code BigDecimal}, a whole {@code Double} up to 2^53 - 1) or its decimal text,
     *     as a JSON client sends an id above 2^53 - 1, which JavaScript would round
     * @return {@code null} when the task has no row with that id
     * @throws IllegalArgumentException when {@code id} is none of these, naming it and what the task's
     *     ids look like
     */
    public @Nullable Map<String, Object> readRow(Object id) {
        TaskContext context = runner.context();
        return context.store().admin().readRow(context.definition(), RowIds.parse(context.definition(), id));
    }

    /**
     * The last shard fenced off here by a node of another cluster (one that is not a member of this
     * node's coordinator), while it is {@linkplain ForeignFence#recent recent}; {@code null} otherwise.
     */
    public @Nullable ForeignFence recentForeignFence() {
        ForeignFence last = runner.context().stats().lastForeignFence();
        return last != null && last.recent(runner.context().clock().now()) ? last : null;
    }

    /**
     * Why this node claims no shard of the task: it runs another shard count than the nodes holding
     * the task's leases (a rolling change of {@code scan.tasks.X.shards}), as the last lease tick found;
     * {@code null} when it runs the cluster's count.
     */
    public @Nullable ShardCountConflict shardCountConflict() {
        return runner.shardCountConflict();
    }

    /**
     * While nodes of two shard counts, one a multiple of the other, run the task at once (a rolling
     * change of {@code shards} to a multiple), the smaller count: the shards are assigned in it, and
     * shard {@code s} of either count is held while any lease of a shard {@code ≡ s} modulo it is; 0
     * otherwise, as the last lease tick found.
     */
    public int splitParents() {
        return runner.splitParents();
    }

    /** The larger count of the split {@link #splitParents()} names; 0 when none. */
    public int splitInto() {
        return runner.splitInto();
    }

    /**
     * Whether this node holds back after it rejoined the task's members ({@code scan.rejoin-hold}): until
     * when, and how often it rejoined; {@code null} when it does not hold back.
     */
    public @Nullable RejoinHoldStatus rejoinHold() {
        return runner.rejoinHold();
    }

    /** Whether the last heartbeat reached the coordinator. */
    public boolean coordinatorReachable() {
        return runner.coordinatorReachable();
    }

    /**
     * The task's statement (fetch, probe, write-back…) that has been running longest, if longer than
     * {@code scan.lease-ttl}: a locked table or a slow database; {@code null} when none has.
     */
    public @Nullable SlowStatement slowStatement() {
        return runner.slowStatement();
    }

    /**
     * The task's last statement that ran past twice {@code scan.lease-ttl} and was cancelled (its
     * kind, the table, the timeout and what to do), until a statement of the same kind succeeds, five
     * minutes at most; {@code null} when none.
     */
    public @Nullable String statementTimedOut() {
        return runner.statementTimedOut();
    }

    /** How many of the task's statements were cancelled for running past twice {@code scan.lease-ttl} since start. */
    public long statementTimeouts() {
        return runner.statementTimeouts();
    }

    /** How long the task's longest running statement has been running; zero when none runs. */
    public Duration longestStatement() {
        return runner.longestStatement();
    }

    public boolean isPaused() {
        return runner.isPaused();
    }

    public boolean isRunning() {
        return runner.isRunning();
    }

    /** Stops starting rounds on this node only, until it restarts; running ones finish. Leases are kept. */
    public void pause() {
        runner.pause(true);
    }

    /** Undoes {@link #pause()}; a pause everywhere still holds. */
    public void resume() {
        runner.pause(false);
    }

    /**
     * Stops starting rounds on every node of the task, now here and on the others at their next
     * lease tick; stored with the task, so it holds for nodes that restart or join. Leases are kept.
     */
    public void pauseEverywhere() {
        runner.pauseEverywhere(true);
    }

    /** Undoes {@link #pauseEverywhere()} on every node; a node paused by {@link #pause()} stays paused. */
    public void resumeEverywhere() {
        runner.pauseEverywhere(false);
    }

    /** Whether the task is paused on every node, as this node last read it. */
    public boolean isPausedEverywhere() {
        return runner.isPausedEverywhere();
    }

    /**
     * Scans every shard this node holds now and waits until the task is quiet: every tier ran a
     * pass to its end and the last round of passes handled no row. For an application's tests;
     * rows that fail meanwhile wait for their tier's interval as always. A task whose run is done
     * starts no round: it returns 0 at once.
     *
     * @return the rows handled meanwhile
     * @throws IllegalStateException when the task holds no shard, or is still busy, after {@code timeout}
     */
    public long drain(Duration timeout) {
        return runner.drain(runner.context().clock().nanos() + timeout.toNanos());
    }

    /**
     * The endpoints banned at level 2, as this node last read them from the shared store (every
     * lease tick), in force or waiting for their probe row.
     *
     * @return the bans; empty for a task without an endpoint column or when none is banned
     */
    public List<EndpointBan> bannedEndpoints() {
        EndpointBlacklist endpoints = runner.context().endpoints();
        return endpoints == null ? List.of() : endpoints.bans();
    }

    /**
     * Lifts the ban of {@code endpoint} on every node (the others follow at their next lease tick)
     * and its level 1 on this node.
     *
     * @return whether it was banned
     * @throws IllegalArgumentException when the task has no endpoint column
     */
    public boolean liftBan(String endpoint) {
        EndpointBlacklist endpoints = runner.context().endpoints();
        if (endpoints == null) {
            throw new IllegalArgumentException("task " + runner.context().name() + " has no endpoint column"
                    + " (scan.tasks." + runner.context().name() + ".endpoint-column), so nothing is banned");
        }
        boolean lifted = endpoints.lift(Objects.requireNonNull(endpoint, "endpoint"), "lifted by an operator");
        wakeUpAfterLift();
        return lifted;
    }

    private void wakeUpAfterLift() {
        runner.trigger();
    }

    /** Scans every owned shard now, skipping the tiers' waits. */
    public void trigger() {
        runner.trigger();
    }
}
