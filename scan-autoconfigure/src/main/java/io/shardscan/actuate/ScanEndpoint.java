package io.shardscan.actuate;

import io.shardscan.core.RangeView;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.TaskView;
import io.shardscan.core.spi.EndpointBan;
import io.shardscan.core.spi.TaskRun;
import java.lang.System.Logger.Level;
import java.security.Principal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code scan} actuator endpoint: every task's state, members, shard ownership, cached backlog
 * and totals on this node, and, when {@code management.endpoint.scan.access=unrestricted} (see
 * {@link ScanEndpointAccess}), pause, resume, trigger,
 * requeue-dead and lift-ban. Reading runs no query: leases and members are those of the last lease tick, the
 * backlog that of the last background count. Over HTTP {@link ScanEndpointWebExtension} answers
 * errors with status codes; over JMX they are exceptions. Thread-safe.
 */
@Endpoint(id = "scan")
public class ScanEndpoint {

    private static final System.Logger log = System.getLogger(ScanEndpoint.class.getName());

    private final ScanEngine engine;
    private final ScanBacklogs backlogs;
    private final boolean writeEnabled;

    /**
     * @param writeEnabled whether write operations are accepted
     */
    public ScanEndpoint(ScanEngine engine, ScanBacklogs backlogs, boolean writeEnabled) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.backlogs = Objects.requireNonNull(backlogs, "backlogs");
        this.writeEnabled = writeEnabled;
    }

    /** This node and all of its tasks. */
    @ReadOperation
    public ScanDescriptor scan() {
        Map<String, TaskDescriptor> tasks = new LinkedHashMap<>();
        for (String name : engine.taskNames()) {
            tasks.put(name, describe(engine.task(name)));
        }
        Map<String, RangeTaskDescriptor> ranges = new LinkedHashMap<>();
        for (String name : engine.rangeTaskNames()) {
            ranges.put(name, RangeTaskDescriptor.of(engine.rangeTask(name), false));
        }
        return new ScanDescriptor(engine.nodeId(), tasks, ranges, new TreeMap<>(engine.tasksNotRunHere()));
    }

    /** One task, or {@code null} when this node has no task of that name. */
    @ReadOperation
    public @Nullable TaskDescriptor task(@Selector String task) {
        TaskView view = view(task);
        return view == null ? null : describe(view);
    }

    /**
     * Pauses, resumes or triggers a task, requeues its dead rows, lifts an endpoint's ban or starts a
     * new run, and logs who asked.
     *
     * @param action {@code pause}, {@code resume}, {@code pause-node}, {@code resume-node}, {@code trigger},
     *     {@code requeue-dead}, {@code lift-ban} or {@code start}
     * @param endpoint the endpoint whose ban {@code lift-ban} lifts; unused by the other actions
     * @throws IllegalStateException when write operations are off
     * @throws IllegalArgumentException for an unknown task or action
     */
    @WriteOperation
    public ActionDescriptor act(
            @Selector String task, String action, @Nullable String endpoint, SecurityContext securityContext) {
        if (!writeEnabled) {
            throw new IllegalStateException(writeDisabledMessage());
        }
        ScanAction known =
                ScanAction.of(action).orElseThrow(() -> new IllegalArgumentException(unknownActionMessage(action)));
        RangeView range = rangeView(task);
        if (range != null) {
            return perform(task, range, known, securityContext);
        }
        TaskView view = view(task);
        if (view == null) {
            throw new IllegalArgumentException(unknownTaskMessage(task));
        }
        return perform(task, view, known, endpoint, securityContext);
    }

    /** A range task's view, or {@code null} when this node has no range task of that name. */
    @Nullable
    RangeView rangeView(String task) {
        return engine.rangeTaskNames().contains(task) ? engine.rangeTask(task) : null;
    }

    /** A range task with its failures: a count and the most recent ones (two small queries). */
    RangeTaskDescriptor describe(RangeView task) {
        return RangeTaskDescriptor.of(task, true);
    }

    ActionDescriptor perform(String task, RangeView view, ScanAction action, SecurityContext securityContext) {
        Principal principal = securityContext.getPrincipal();
        String who = principal == null ? "anonymous" : principal.getName();
        Integer ran = action.apply(view);
        log.log(
                Level.INFO,
                "Scan " + door(securityContext) + ": " + action.value() + " of range task " + task + " on node "
                        + engine.nodeId() + " by " + who + (ran == null ? "" : ", " + ran + " failed rows run again"));
        RangeTaskDescriptor after = RangeTaskDescriptor.of(view, false);
        return new ActionDescriptor(
                engine.nodeId(), task, action.value(), after.state(), ran, null, null, after.runId());
    }

    boolean writeEnabled() {
        return writeEnabled;
    }

    @Nullable
    TaskView view(String task) {
        return engine.taskNames().contains(task) ? engine.task(task) : null;
    }

    TaskDescriptor describe(TaskView task) {
        return TaskDescriptor.of(task, backlogs.backlog(task.definition().name()));
    }

    ActionDescriptor perform(
            String task, TaskView view, ScanAction action, @Nullable String endpoint, SecurityContext securityContext) {
        Principal principal = securityContext.getPrincipal();
        String who = principal == null ? "anonymous" : principal.getName();
        ScanAction.Applied applied = action.apply(view, endpoint);
        String message = applied.lifted() == null ? null : liftMessage(view, endpoint, applied.lifted());
        log.log(
                Level.INFO,
                "Scan " + door(securityContext) + ": " + action.value() + (endpoint == null ? "" : " " + endpoint)
                        + " of task " + task
                        + " on node " + engine.nodeId() + " by " + who
                        + (applied.requeued() == null ? "" : ", " + applied.requeued() + " dead rows requeued")
                        + (message == null ? "" : ": " + message));
        TaskRun run = view.run();
        return new ActionDescriptor(
                engine.nodeId(),
                task,
                action.value(),
                view.state(),
                applied.requeued(),
                applied.lifted(),
                message,
                run == null ? null : run.id());
    }

    private static String liftMessage(TaskView view, @Nullable String endpoint, boolean lifted) {
        if (lifted) {
            return "the ban of endpoint " + endpoint + " is lifted on every node (the others follow within a renew"
                    + " interval); its rows are fetched again";
        }
        List<String> banned =
                view.bannedEndpoints().stream().map(EndpointBan::endpoint).toList();
        return "endpoint " + endpoint + " was not banned, so no ban was lifted; banned now: " + banned;
    }

    /**
     * A caller's security context that says through which door a write came, for the write's log
     * line ({@code Scan <door>: pause of task ...}); a context without it is the endpoint's own.
     */
    public interface Door {

        /** The door's name, e.g. {@code dashboard}. */
        String door();
    }

    private static String door(SecurityContext securityContext) {
        return securityContext instanceof Door door ? door.door() : "endpoint";
    }

    static String writeDisabledMessage() {
        return "Write operations of the scan endpoint are off: set " + ScanEndpointAccess.PROPERTY
                + "=unrestricted to allow them";
    }

    String unknownTaskMessage(String task) {
        return "No task '" + task + "' on node " + engine.nodeId() + "; known: " + engine.taskNames()
                + (engine.rangeTaskNames().isEmpty() ? "" : " and range tasks " + engine.rangeTaskNames());
    }

    static String unknownActionMessage(@Nullable String action) {
        return "Unknown action '" + action + "': use one of " + ScanAction.names();
    }
}
