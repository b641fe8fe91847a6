package io.shardscan.core;

import io.shardscan.core.spi.EndpointBans;
import io.shardscan.core.spi.RangeStores;
import io.shardscan.core.spi.SchemaReport;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.spi.WakeChannel;
import io.shardscan.core.task.IndexCheck;
import io.shardscan.core.task.InvalidTaskException;
import io.shardscan.core.task.MatchOverlap;
import io.shardscan.core.task.RangeJob;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Runs every task on this node. {@link #start()} checks each task's table, then starts claiming
 * shards and running rounds; {@link #stop()} stops claiming, lets running rounds finish within the
 * shutdown timeout, writes back and releases every lease. Thread-safe.
 */
public final class ScanEngine {

    private static final System.Logger log = ScanLogging.getLogger(ScanEngine.class);

    private final Map<String, TaskRunner> runners = new LinkedHashMap<>();
    private final Map<String, RangeRunner> ranges = new LinkedHashMap<>();
    private final @Nullable RangeStores rangeStores;
    private final EngineSettings settings;
    private final ShardCoordinator coordinator;
    private final @Nullable WorkerBudget budget;
    private final LeaseRenewals renewals;
    private final NodeThreads threads;
    private volatile boolean running;
    private boolean checked;
    private volatile Wakes wakes;
    private volatile Map<String, String> notRunHere = Map.of();

    /**
     * Creates an engine; nothing runs before {@link #start()}.
     *
     * @param tasks the tasks with their handlers, at most one handler per task name
     */
    public ScanEngine(
            List<ScanTask> tasks,
            TaskStore store,
            ShardCoordinator coordinator,
            EngineSettings settings,
            ScanClock clock,
            ScanListener listener) {
        this(tasks, store, coordinator, settings, clock, listener, new InMemoryEndpointBans(clock));
    }

    /**
     * Creates an engine whose endpoint blacklist (for tasks with an endpoint column) is shared
     * through {@code bans}; nothing runs before {@link #start()}.
     */
    public ScanEngine(
            List<ScanTask> tasks,
            TaskStore store,
            ShardCoordinator coordinator,
            EngineSettings settings,
            ScanClock clock,
            ScanListener listener,
            EndpointBans bans) {
        this(tasks, store, coordinator, settings, clock, listener, bans, List.of(), null);
    }

    /**
     * Creates an engine that also runs range tasks ({@code rangeJobs}) on {@code rangeStores};
     * nothing runs before {@link #start()}.
     *
     * @param rangeStores where range tasks keep their runs and progress; may be {@code null} without range jobs
     */
    public ScanEngine(
            List<ScanTask> tasks,
            TaskStore store,
            ShardCoordinator coordinator,
            EngineSettings settings,
            ScanClock clock,
            ScanListener listener,
            EndpointBans bans,
            List<RangeJob> rangeJobs,
            @Nullable RangeStores rangeStores) {
        Objects.requireNonNull(bans, "bans");
        if (!rangeJobs.isEmpty()) {
            Objects.requireNonNull(rangeStores, "rangeStores");
        }
        this.rangeStores = rangeStores;
        this.settings = Objects.requireNonNull(settings, "settings");
        this.coordinator = Objects.requireNonNull(coordinator, "coordinator");
        this.budget = settings.maxWorkers() == null ? null : new WorkerBudget(settings.maxWorkers(), clock);
        this.renewals = new LeaseRenewals(coordinator, settings, clock);
        this.threads = new NodeThreads(tasks.size());
        Map<TaskStore, StoreTasks> storeTasks = new IdentityHashMap<>();
        for (ScanTask task : tasks) {
            if (task.definition().tables() != null && !(task.store() instanceof ShardedTablesStore)) {
                throw new InvalidTaskException("scan.tasks." + task.definition().name() + " scans several tables,"
                        + " whose rows the engine's store cannot route: give the task a ShardedTablesStore"
                        + " (ScanTask.withStore)");
            }
            TaskStore own = task.store() == null ? store : task.store();
            // the tasks of one store (one data source) probe their idle shards and read their pauses together
            StoreTasks mates = storeTasks.computeIfAbsent(
                    own, shared -> new StoreTasks(shared, settings.statementTimeout(), clock));
            TaskRunner runner = new TaskRunner(
                    task, own, coordinator, settings, clock, listener, bans, budget, renewals, threads, mates);
            if (runners.putIfAbsent(task.definition().name(), runner) != null) {
                throw new InvalidTaskException(
                        "scan.tasks." + task.definition().name() + " has two handlers: keep one @ScanTask(\""
                                + task.definition().name() + "\") method");
            }
            tellAboutBudget(task.definition(), budget);
        }
        this.wakes = new Wakes(runners, WakeChannel.NONE);
        for (RangeJob job : rangeJobs) {
            String name = job.task().name();
            if (runners.containsKey(name)
                    || ranges.putIfAbsent(name, new RangeRunner(job, rangeStores, settings, clock)) != null) {
                throw new InvalidTaskException(
                        "scan.tasks." + name + " has two handlers: keep one @ScanTask(\"" + name + "\") method");
            }
        }
    }

    /**
     * Priorities and max-wait rank the rounds waiting for the node's budget; without one they change
     * nothing. With one, a task's {@code workers} above it are never all used on this node.
     */
    private static void tellAboutBudget(TaskDefinition task, @Nullable WorkerBudget budget) {
        if (budget == null && (task.rounds().priority() != 0 || task.rounds().maxWait() != null)) {
            log.log(
                    Level.WARNING,
                    "scan.tasks." + task.name() + ".priority and max-wait decide which task gets free workers of"
                            + " scan.max-workers first, which is not set: they have no effect; set scan.max-workers"
                            + " to the handler threads all tasks of this node share");
        }
        if (budget != null && task.rounds().workers() > budget.size()) {
            log.log(
                    Level.INFO,
                    "Task " + task.name() + ": scan.tasks." + task.name() + ".workers is "
                            + task.rounds().workers()
                            + ", above scan.max-workers (" + budget.size() + ", the handler threads all tasks of this"
                            + " node share): it runs at most " + budget.size() + " handlers at once on this node;"
                            + " raise scan.max-workers to run more");
        }
    }

    /** A further check of a task's table, run by {@link #check(TableCheck)}. */
    @FunctionalInterface
    public interface TableCheck {

        /**
         * Checks one task's table, found with all its configured columns.
         *
         * @return the problems, each naming the property or column and the fix; empty when none
         */
        List<String> problems(TaskDefinition task, SchemaReport report);
    }

    /**
     * A task and its handler.
     *
     * @param definition the task
     * @param handler the user's code
     * @param transactional whether each handler call and its row's write-back commit in one
     *     transaction checked against the fence: exactly-once for the handler's database effects
     */
    public record ScanTask(
            TaskDefinition definition,
            TaskHandler handler,
            boolean transactional,
            @Nullable TaskStore store) {

        /** A task of the engine's store. */
        public ScanTask(TaskDefinition definition, TaskHandler handler, boolean transactional) {
            this(definition, handler, transactional, null);
        }

        /** A task whose handler runs outside the write-back's transaction. */
        public ScanTask(TaskDefinition definition, TaskHandler handler) {
            this(definition, handler, false);
        }

        /** This task on a store of its own (a sharded task's {@link ShardedTablesStore}), not the engine's. */
        public ScanTask withStore(TaskStore store) {
            return new ScanTask(definition, handler, transactional, store);
        }
    }

    /**
     * Checks every task's table once, before anything runs, and that no two tasks would fetch the same
     * pending rows (see {@link MatchOverlap}): the auto-configuration calls it while the
     * engine bean is created, so a bad table fails startup before the web server starts. Logs what
     * only slows or skips rows, such as a missing index under {@link IndexCheck#WARN} or rows with a
     * NULL shard key.
     *
     * @return the problems that must fail startup, of every task; empty when all tables can be used
     */
    public synchronized List<String> check() {
        return check((task, report) -> List.of());
    }

    /**
     * {@link #check()} with a further check of each table that exists with all configured columns,
     * such as whether the handler's row type matches its columns.
     *
     * @return the problems that must fail startup, of every task; empty when all tables can be used
     */
    public synchronized List<String> check(TableCheck extra) {
        return check(extra, Set.of());
    }

    /**
     * {@link #check(TableCheck)}, leaving out of the overlap check the tasks whose configuration
     * already failed elsewhere, as a task whose match failed against its table is left out: an
     * overlap then only follows from that error (a misspelled {@code mach:} leaves a task without a
     * match, so it seems to take every row).
     *
     * @param failed names of tasks found wrong before, such as with an unknown key under the task
     * @return the problems that must fail startup, of every task; empty when all tables can be used
     */
    public synchronized List<String> check(TableCheck extra, Set<String> failed) {
        Objects.requireNonNull(extra, "extra");
        Objects.requireNonNull(failed, "failed");
        List<String> tableProblems = new ArrayList<>();
        List<TaskDefinition> overlapChecked = new ArrayList<>();
        Set<String> clean = new HashSet<>();
        for (TaskRunner runner : runners.values()) {
            SchemaCheck.Checked result = SchemaCheck.apply(runner.context(), extra);
            tableProblems.addAll(result.problems());
            TaskDefinition task = runner.context().definition();
            if (result.problems().isEmpty()) {
                clean.add(task.name());
            }
            if (!result.matchFailed() && !failed.contains(task.name())) {
                overlapChecked.add(task);
            }
        }
        List<String> problems = new ArrayList<>(TaskOverlap.problems(overlapChecked));
        problems.addAll(tableProblems);
        for (RangeRunner range : ranges.values()) {
            problems.addAll(SchemaCheck.range(range.task(), rangeStores.table().inspect(range.task()), extra));
        }
        problems.addAll(runProblems());
        if (problems.isEmpty()) {
            UnmatchedRows.warn(
                    runners.values().stream().map(TaskRunner::context).toList(), clean);
        }
        checked = problems.isEmpty();
        return problems;
    }

    /** Tasks whose runs end need a store that keeps runs. */
    private List<String> runProblems() {
        List<String> problems = new ArrayList<>();
        for (TaskRunner runner : runners.values()) {
            TaskDefinition task = runner.context().definition();
            if (runner.runs().keepsRuns() && runner.context().store().runs() == null) {
                problems.add(
                        "scan.tasks." + task.name() + ".run is " + task.run().property() + ", but the task store "
                                + ((WatchedStore) runner.context().store())
                                        .watched()
                                        .getClass()
                                        .getSimpleName() + " keeps no runs: use the JDBC"
                                + " store, or run: forever");
            }
        }
        return problems;
    }

    /**
     * Checks every task's table unless {@link #check()} passed already, then starts them.
     *
     * @throws InvalidTaskException listing every problem when a table or column is missing or
     *     unusable, or an index is missing under {@link IndexCheck#FAIL}
     */
    public synchronized void start() {
        if (running) {
            return;
        }
        if (!checked) {
            List<String> problems = check();
            if (!problems.isEmpty()) {
                throw new InvalidTaskException(problems);
            }
        }
        if (budget != null) {
            // the rounds in line hold no thread that would notice their task stop or their shard move
            threads.every(WorkerBudget.SWEEP, budget::sweep);
        }
        runners.values().forEach(TaskRunner::start);
        renewals.start();
        ranges.values().forEach(RangeRunner::start);
        wakes.open();
        running = true;
        log.log(
                Level.INFO,
                "Shardscan node " + settings.nodeId() + " started tasks " + runners.keySet()
                        + (ranges.isEmpty() ? "" : " and range tasks " + ranges.keySet()));
        notRunHere.forEach((task, why) -> log.log(Level.INFO, "Task " + task + " is not run on this node: " + why));
    }

    /** Stops every task gracefully; returns when their leases are released or the shutdown timeout passed. */
    public synchronized void stop() {
        if (!running) {
            return;
        }
        running = false;
        if (budget != null) {
            // before any task stops: the workers a stopping task frees must not start another's rows
            budget.close();
        }
        wakes.close();
        // each task on a thread of its own, so the node stops within one shutdown timeout, however many tasks
        // it runs and whatever the machine's cores (a parallel stream stops as many at once as there are cores)
        List<Thread> stopping = new ArrayList<>();
        runners.values().forEach(r -> stopping.add(Threads.named("scan-stop-").newThread(r::stop)));
        ranges.values().forEach(r -> stopping.add(Threads.named("scan-stop-").newThread(r::stop)));
        stopping.forEach(Thread::start);
        for (Thread thread : stopping) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        // only now: a stopping task's shards whose rounds still ran were renewed until they were released
        renewals.stop();
        threads.close();
        log.log(Level.INFO, "Shardscan node " + settings.nodeId() + " stopped");
    }

    public boolean isRunning() {
        return running;
    }

    /**
     * Sends the wake-ups of shards other nodes hold through {@code channel} and receives the other nodes'
     * (and insert triggers') from it, from {@link #start()} on; without it a wake-up reaches only the
     * shards this node holds.
     *
     * @return this engine
     * @throws IllegalStateException once started
     */
    public synchronized ScanEngine wakeThrough(WakeChannel channel) {
        Objects.requireNonNull(channel, "channel");
        if (running) {
            throw new IllegalStateException("the wake channel is set before the engine starts");
        }
        this.wakes = new Wakes(runners, channel);
        return this;
    }

    /**
     * The tasks configured for the cluster that this node does not run, each with why (scan.tasks.X.enabled
     * false here, or node tags this node lacks): logged at start, shown by the endpoint, named when one is
     * asked for.
     *
     * @return this engine
     * @throws IllegalStateException once started
     */
    public synchronized ScanEngine notRunHere(Map<String, String> tasks) {
        if (running) {
            throw new IllegalStateException("the tasks not run here are set before the engine starts");
        }
        this.notRunHere = Map.copyOf(tasks);
        return this;
    }

    /** The tasks configured for the cluster that this node does not run, each with why. */
    public Map<String, String> tasksNotRunHere() {
        return notRunHere;
    }

    /**
     * Makes the first tier of {@code shards} of {@code task} due now: here for the shards this node
     * holds, on their owners through the {@link #wakeThrough wake channel} for the others. Coalesced:
     * a burst of wake-ups of one shard makes a round or two, not one each. Before {@link #start()} and
     * after {@link #stop()} a wake-up is dropped (logged once at INFO): polling picks the rows up.
     *
     * @throws IllegalArgumentException for an unknown task, a range task or a shard out of range
     */
    public void wake(String task, Collection<Integer> shards) {
        TaskDefinition definition = task(task).definition();
        for (int shard : shards) {
            if (shard < 0 || shard >= definition.shards()) {
                throw new IllegalArgumentException("task " + task + " has shards 0.." + (definition.shards() - 1)
                        + ", not " + shard + ": compute it as definition().shardOf(key)");
            }
        }
        wakes.wake(task, shards);
    }

    /** This node's id. */
    public String nodeId() {
        return settings.nodeId();
    }

    public EngineSettings settings() {
        return settings;
    }

    public ShardCoordinator coordinator() {
        return coordinator;
    }

    /** The names of the tasks, in configuration order. */
    public Set<String> taskNames() {
        return runners.keySet();
    }

    /** The names of the range tasks, in configuration order; none of them is in {@link #taskNames()}. */
    public Set<String> rangeTaskNames() {
        return ranges.keySet();
    }

    /**
     * One range task's live view.
     *
     * @throws IllegalArgumentException for an unknown range task
     */
    public RangeView rangeTask(String name) {
        RangeRunner runner = ranges.get(name);
        if (runner == null) {
            throw new IllegalArgumentException("no range task '" + name + "'; known: " + ranges.keySet());
        }
        return new RangeView(runner, rangeStores);
    }

    /**
     * One task's live view.
     *
     * @throws IllegalArgumentException for an unknown task
     */
    public TaskView task(String name) {
        TaskRunner runner = runners.get(name);
        if (runner == null && ranges.containsKey(name)) {
            throw new IllegalArgumentException("task '" + name + "' is a range task (mode: range): it has no shards"
                    + " to wake or drain, its ranges follow the id cursor; start its next run with ScanTasks.start(\""
                    + name + "\"), see it with ScanEngine.rangeTask(\"" + name + "\")");
        }
        if (runner == null && notRunHere.containsKey(name)) {
            throw new IllegalArgumentException("task '" + name + "' is not run on this node: " + notRunHere.get(name));
        }
        if (runner == null) {
            throw new IllegalArgumentException("no task '" + name + "'; known: " + runners.keySet());
        }
        return new TaskView(runner, shards -> wakes.wake(name, shards));
    }
}
