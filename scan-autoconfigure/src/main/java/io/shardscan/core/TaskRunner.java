package io.shardscan.core;

import io.shardscan.core.spi.EndpointBans;
import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.spi.Member;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.spi.ShardCountConflict;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.task.TaskDefinition;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Runs one task on this node: a control thread that keeps its membership and claims and hands
 * over its shards every renew interval ({@link TickSchedule}, {@link ShardClaims},
 * {@link LeaseKeeper}; the node's {@link LeaseRenewals} renews the leases), and a
 * {@link Dispatcher} thread that starts a round on each owned, idle, due shard while workers are
 * free, until {@link TaskStop} ends both; each a {@link TaskThread} on the node's shared threads.
 */
final class TaskRunner {

    private static final System.Logger log = ScanLogging.getLogger(TaskRunner.class);

    private final TaskContext context;
    private final EngineSettings settings;
    private final CoordinatorHealth health;
    private final LeaseKeeper leases;
    private final ShardClaims claims;
    private final BacklogWatch backlogWatch = new BacklogWatch();
    private final RunKeeper runs;

    private final TaskThread control;
    private final TickSchedule ticks;
    private final Dispatcher dispatcher;
    private volatile boolean paused;
    private final EverywherePause pausedEverywhere;

    TaskRunner(
            ScanEngine.ScanTask task,
            TaskStore store,
            ShardCoordinator coordinator,
            EngineSettings settings,
            ScanClock clock,
            ScanListener listener,
            EndpointBans bans,
            @Nullable WorkerBudget budget,
            LeaseRenewals renewals,
            NodeThreads threads,
            StoreTasks mates) {
        TaskDefinition definition = task.definition();
        String name = definition.name();
        // the node's worker threads under its budget (TaskWorkers), else a pool of the task's own; either
        // way TaskContext adds a thread for each one abandoned in a hung handler, so the task keeps its workers
        TaskWorkers workers = budget != null && settings.workerThreads() == WorkerThreads.PLATFORM
                ? threads.workers(name, budget.size())
                : TaskWorkers.own(
                        definition.rounds().workers(),
                        settings.workerThreads().factory(name, "scan-" + name + "-worker-"));
        this.context = new TaskContext(
                task,
                store,
                settings.statementTimeout(),
                clock,
                listener,
                workers,
                settings.nodeId(),
                this::wakeUp,
                () -> isRunning() && startsRounds(),
                this::countingRun,
                budget,
                bans,
                settings.endpointDown());
        this.settings = settings;
        this.health = new CoordinatorHealth(context, coordinator, settings, renewals);
        this.leases = new LeaseKeeper(context, coordinator, settings, health);
        renewals.add(leases);
        this.claims = new ShardClaims(context, coordinator, settings, leases, health);
        this.pausedEverywhere = new EverywherePause(context, settings.renewInterval(), mates);
        this.dispatcher = new Dispatcher(
                context,
                leases,
                health,
                pausedEverywhere,
                this::startsRounds,
                threads.dispatcher(name),
                threads.rounds(name, store),
                mates);
        this.runs = new RunKeeper(context, this::trigger);
        // a tick scheduled for later does not run after stop() released the leases
        this.control = threads.control(name);
        this.ticks = new TickSchedule(
                name, control, settings.renewInterval(), this::tick, dispatcher::isRunning, health::heartbeat);
        renewals.add(ticks);
    }

    TaskContext context() {
        return context;
    }

    void start() {
        pausedEverywhere.start();
        dispatcher.start();
        ticks.start();
    }

    /** Stops the task on this node; see {@link TaskStop#stop}. */
    void stop() {
        pausedEverywhere.stop();
        new TaskStop(context, settings, leases, dispatcher, control).stop();
    }

    /** Pauses or resumes this node only, until it restarts. */
    void pause(boolean paused) {
        this.paused = paused;
        wakeUp();
    }

    /** Pauses or resumes the task on every node: stored, so every node reads it at its next lease tick. */
    void pauseEverywhere(boolean paused) {
        pausedEverywhere.set(paused);
        wakeUp();
    }

    /** Whether this node starts no rounds: paused here or everywhere. */
    boolean isPaused() {
        return paused || pausedEverywhere.paused();
    }

    /** Whether this node starts rounds: not paused, and the task's run (if it keeps runs) runs. */
    private boolean startsRounds() {
        return !isPaused() && runs.dispatching();
    }

    private long countingRun() {
        return runs.countingRun();
    }

    /** When the task's backlog is counted again. */
    BacklogWatch backlogWatch() {
        return backlogWatch;
    }

    /** The task's run on this node. */
    RunKeeper runs() {
        return runs;
    }

    boolean isPausedEverywhere() {
        return pausedEverywhere.paused();
    }

    boolean isRunning() {
        return dispatcher.isRunning();
    }

    /** Makes every tier of every owned shard due now. */
    void trigger() {
        Instant now = context.clock().now();
        leases.owned().forEach(s -> s.trigger(now));
        wakeUp();
    }

    /**
     * Wakes {@code shard} if this node holds it: its first tier is due now (see {@link OwnedShard#wake}).
     *
     * @return whether this node holds it; {@code false} also for a shard out of range
     */
    boolean wakeShard(int shard) {
        OwnedShard owned = leases.owned(shard);
        if (owned == null || owned.ended()) {
            return false;
        }
        owned.wake(context.clock().now());
        wakeUp();
        return true;
    }

    /** Scans every held shard until the task is quiet; see {@link TaskDrain}. */
    long drain(long deadlineNanos) {
        if (runs.done()) {
            return 0;
        }
        return new TaskDrain(context, leases::owned, claims::settled, this::trigger).run(deadlineNanos);
    }

    /** The shards this node holds a usable lease on, ascending, with their epochs. */
    Map<Integer, Long> ownedShards() {
        return leases.usable();
    }

    int waitingKeys() {
        return leases.owned().stream().mapToInt(s -> s.held().size()).sum();
    }

    List<Member> members() {
        return health.members();
    }

    List<LeaseInfo> leases() {
        return health.leases();
    }

    String coordinatorKind() {
        return health.coordinatorKind();
    }

    boolean coordinatorReachable() {
        return health.coordinatorReachable();
    }

    @Nullable
    SlowStatement slowStatement() {
        return leases.slowStatement();
    }

    /** The task's last statement cancelled for running past its timeout, described; {@code null} when none shows. */
    @Nullable
    String statementTimedOut() {
        return context.statements().lastTimeout();
    }

    /** How many of the task's statements were cancelled for running past their timeout since start. */
    long statementTimeouts() {
        return context.statements().timeouts();
    }

    /** How long the task's longest running statement has been running; zero when none runs. */
    Duration longestStatement() {
        SlowStatement longest = context.statements().slowest(Duration.ZERO);
        return longest == null ? Duration.ZERO : longest.running();
    }

    @Nullable
    ShardCountConflict shardCountConflict() {
        return claims.shardCountConflict();
    }

    int splitParents() {
        return claims.splitParents();
    }

    int splitInto() {
        return claims.splitInto();
    }

    @Nullable
    RejoinHoldStatus rejoinHold() {
        return health.rejoinHold();
    }

    void wakeUp() {
        dispatcher.wakeUp();
    }

    /**
     * One lease tick, with what the node's renewals read for it ({@code null}: it calls the coordinator
     * itself); {@link TickSchedule} runs the next.
     *
     * @return whether the layout is settled
     */
    private boolean tick(ShardCoordinator.@Nullable Tick read) {
        boolean settled = true;
        try {
            // before the leases, so a node that starts or joins while the task is paused claims its shards
            // but runs nothing
            pausedEverywhere.tick();
            runs.tick();
            settled = claims.tick(dispatcher.isRunning(), read);
            if (context.endpoints() != null) {
                context.endpoints().tick();
            }
            context.failures()
                    .overdue(context.clock().nanos())
                    .forEach((kind, count) -> log.log(
                            Level.WARNING,
                            "Task " + context.name() + ": and " + count + " more failed the same way (" + kind
                                    + ") since its last WARN line; each is logged at DEBUG"));
        } finally {
            wakeUp();
            // counted after the wake-up: a test that waits for the next ticks knows the dispatcher was woken
            context.stats().leaseTicked();
        }
        return settled;
    }
}
