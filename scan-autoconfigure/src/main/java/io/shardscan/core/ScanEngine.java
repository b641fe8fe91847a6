package io.shardscan.core;

import java.lang.System.Logger.Level;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Runs every task on this node. {@link #start()} checks each task's table, then starts claiming
 * shards and running rounds; {@link #stop()} stops claiming, lets running rounds finish within the
 * shutdown timeout, writes back and releases every lease. Thread-safe.
 */
public final class ScanEngine {

    private static final System.Logger log = System.getLogger(ScanEngine.class.getName());

    private final Map<String, TaskRunner> runners = new LinkedHashMap<>();
    private final EngineSettings settings;
    private final ShardCoordinator coordinator;
    private volatile boolean running;

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
        this.settings = Objects.requireNonNull(settings, "settings");
        this.coordinator = Objects.requireNonNull(coordinator, "coordinator");
        for (ScanTask task : tasks) {
            TaskRunner runner = new TaskRunner(task, store, coordinator, settings, clock, listener);
            if (runners.putIfAbsent(task.definition().name(), runner) != null) {
                throw new InvalidTaskException(
                        "scan.tasks." + task.definition().name() + " has two handlers: keep one @ScanTask(\""
                                + task.definition().name() + "\") method");
            }
        }
    }

    /**
     * A task and its handler.
     *
     * @param definition the task
     * @param handler the user's code
     * @param transactional whether each handler call and its row's write-back commit in one
     *     transaction checked against the fence: exactly-once for the handler's database effects
     */
    public record ScanTask(TaskDefinition definition, TaskHandler handler, boolean transactional) {

        /** A task whose handler runs outside the write-back's transaction. */
        public ScanTask(TaskDefinition definition, TaskHandler handler) {
            this(definition, handler, false);
        }
    }

    /**
     * Checks every task's table, then starts them.
     *
     * @throws InvalidTaskException when a table or column is missing, or an index is missing under
     *     {@link IndexCheck#FAIL}
     */
    public synchronized void start() {
        if (running) {
            return;
        }
        runners.values().forEach(r -> SchemaCheck.apply(r.context()));
        runners.values().forEach(TaskRunner::start);
        running = true;
        log.log(Level.INFO, "Shardscan node " + settings.nodeId() + " started tasks " + runners.keySet());
    }

    /** Stops every task gracefully; returns when their leases are released or the shutdown timeout passed. */
    public synchronized void stop() {
        if (!running) {
            return;
        }
        running = false;
        runners.values().parallelStream().forEach(TaskRunner::stop);
        log.log(Level.INFO, "Shardscan node " + settings.nodeId() + " stopped");
    }

    public boolean isRunning() {
        return running;
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

    /**
     * One task's live view.
     *
     * @throws IllegalArgumentException for an unknown task
     */
    public TaskView task(String name) {
        TaskRunner runner = runners.get(name);
        if (runner == null) {
            throw new IllegalArgumentException("no task '" + name + "'; known: " + runners.keySet());
        }
        return new TaskView(runner);
    }
}
