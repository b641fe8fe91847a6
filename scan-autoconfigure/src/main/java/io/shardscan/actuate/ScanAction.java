package io.shardscan.actuate;

import io.shardscan.core.RangeView;
import io.shardscan.core.TaskView;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/** What the scan endpoint's write operation can do to a task, by the name a client sends. */
public enum ScanAction {

    /** Stop starting rounds on every node, also after restarts and joins; running ones finish, leases are kept. */
    PAUSE("pause"),
    /** Start rounds again on every node. */
    RESUME("resume"),
    /** Stop starting rounds on this node only, until it restarts. */
    PAUSE_NODE("pause-node"),
    /** Undo {@code pause-node} on this node. */
    RESUME_NODE("resume-node"),
    /** Scan every owned shard now, skipping the tiers' waits. */
    TRIGGER("trigger"),
    /** Put every dead row back to pending with retry count 0, then scan. */
    REQUEUE_DEAD("requeue-dead"),
    /** Lift the level-2 ban of the endpoint given as {@code endpoint}, on every node. */
    LIFT_BAN("lift-ban"),
    /** Start a new run of a task that ends ({@code run: until-empty}), on every node, with the next run id. */
    START("start"),
    /** Run the recorded failed rows of a range task's current run again, on this node. */
    REQUEUE("requeue");

    private final String value;

    ScanAction(String value) {
        this.value = value;
    }

    /** The name a client sends, e.g. {@code requeue-dead}. */
    public String value() {
        return value;
    }

    /** The action named {@code value}, or empty when there is none. */
    public static Optional<ScanAction> of(@Nullable String value) {
        return Arrays.stream(values()).filter(a -> a.value.equals(value)).findFirst();
    }

    /** The names a client may send, for error messages. */
    public static String names() {
        return Arrays.stream(values()).map(ScanAction::value).collect(Collectors.joining(", "));
    }

    /**
     * Applies this action to a range task: {@link #START} starts its next run once the current one is
     * DONE, {@link #REQUEUE} runs up to 1000 recorded failures again.
     *
     * @return the rows run again for {@link #REQUEUE}, otherwise {@code null}
     * @throws IllegalArgumentException for any other action, which a range task does not have
     */
    @Nullable
    Integer apply(RangeView task) {
        switch (this) {
            case START -> task.start();
            case REQUEUE -> {
                return task.requeue(1000);
            }
            default ->
                throw new IllegalArgumentException(
                        value + " is not an action of range task " + task.task().name()
                                + ": use start (a new run once this one is DONE) or requeue (run its failed rows again)");
        }
        return null;
    }

    /**
     * Applies this action to {@code task}.
     *
     * @return the number of rows requeued for {@link #REQUEUE_DEAD}, 1 or 0 (whether there was a ban)
     *     for {@link #LIFT_BAN}, otherwise {@code null}
     * @throws IllegalArgumentException for {@link #LIFT_BAN} without an endpoint or on a task without endpoints
     * @throws IllegalStateException for {@link #START} on a task that runs forever
     */
    @Nullable
    Integer apply(TaskView task, @Nullable String endpoint) {
        switch (this) {
            case LIFT_BAN -> {
                if (endpoint == null || endpoint.isBlank()) {
                    throw new IllegalArgumentException(
                            "lift-ban needs the endpoint to lift: {\"action\": \"lift-ban\", \"endpoint\": \"...\"}");
                }
                return task.liftBan(endpoint) ? 1 : 0;
            }
            case PAUSE -> task.pauseEverywhere();
            case RESUME -> task.resumeEverywhere();
            case PAUSE_NODE -> task.pause();
            case RESUME_NODE -> task.resume();
            case TRIGGER -> task.trigger();
            case START -> task.start();
            case REQUEUE ->
                throw new IllegalArgumentException("requeue runs the failed rows of a range task (mode: range) again;"
                        + " put the dead rows of this task back to pending with requeue-dead");
            case REQUEUE_DEAD -> {
                return task.requeueDead();
            }
        }
        return null;
    }
}
