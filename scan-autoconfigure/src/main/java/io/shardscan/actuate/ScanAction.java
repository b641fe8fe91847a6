package io.shardscan.actuate;

import io.shardscan.core.TaskView;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/** What the scan endpoint's write operation can do to a task, by the name a client sends. */
public enum ScanAction {

    /** Stop starting rounds; running ones finish and leases are kept. */
    PAUSE("pause"),
    /** Start rounds again. */
    RESUME("resume"),
    /** Scan every owned shard now, skipping the tiers' waits. */
    TRIGGER("trigger"),
    /** Put every dead row back to pending with retry count 0, then scan. */
    REQUEUE_DEAD("requeue-dead");

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
     * Applies this action to {@code task}.
     *
     * @return the number of rows requeued for {@link #REQUEUE_DEAD}, otherwise {@code null}
     */
    @Nullable
    Integer apply(TaskView task) {
        switch (this) {
            case PAUSE -> task.pause();
            case RESUME -> task.resume();
            case TRIGGER -> task.trigger();
            case REQUEUE_DEAD -> {
                return task.requeueDead();
            }
        }
        return null;
    }
}
