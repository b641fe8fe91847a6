package io.shardscan.core;

import io.shardscan.core.spi.FailureGroup;
import io.shardscan.core.task.EndpointDownClassifier;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.Row;
import java.lang.System.Logger.Level;
import java.util.List;

/**
 * What a task's handler failures mean and how they are logged: an exception becomes a retry, or an
 * endpoint-down failure when the {@link EndpointDownClassifier} says so; each kind of failure and each
 * reason a row went dead is logged once, then at most once a minute with a count. Thread-safe.
 */
final class HandlerFailures {

    /** Lane's, as before this class: log configurations that name it keep working. */
    private static final System.Logger log = ScanLogging.getLogger(Lane.class);

    private final TaskContext task;
    private final EndpointDownClassifier endpointDown;

    HandlerFailures(TaskContext task, EndpointDownClassifier endpointDown) {
        this.task = task;
        this.endpointDown = endpointDown;
    }

    /**
     * Logs a handler failure at WARN, with the row id, message and stack trace, the first time its
     * kind (exception class and throwing site, see {@link FailureLog}) is seen, and then at most once
     * a minute with how many rows failed the same way meanwhile; every other occurrence goes to
     * DEBUG with its row id and message, so that a failing dependency does not log once per row and
     * retry, even when its messages carry row data.
     */
    Outcome failed(List<Row> unit, Throwable e) {
        Row row = unit.get(0);
        String reason = e.getClass().getName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        long suppressed = task.failures().record(e, unit.size(), task.clock().nanos());
        if (suppressed >= 0) {
            String batch = unit.size() > 1 ? " (with the " + (unit.size() - 1) + " other rows of its batch)" : "";
            String more = suppressed > 0 ? "; and " + suppressed + " more rows failed the same way" : "";
            log.log(
                    Level.WARNING,
                    "Task " + task.name() + " row " + row.id() + batch + " failed at attempt " + (row.retries() + 1)
                            + ": " + reason + more + jvmFailure(e),
                    e);
        } else {
            log.log(
                    Level.DEBUG,
                    () -> "Task " + task.name() + " row " + row.id() + " failed again (retry " + row.retries() + "): "
                            + reason);
        }
        return endpointDown.endpointDown(e) ? Outcome.endpointDown(reason) : Outcome.retryLater(reason);
    }

    /**
     * What a {@link VirtualMachineError} thrown by a handler means for the node: the row is failed like
     * any exception and backs off through the tiers, and the node goes on, since the engine cannot
     * tell one row's huge allocation or deep recursion (gone with the call) from a JVM that cannot go
     * on; the JVM's own flag is the switch for that. Empty for any other failure.
     */
    private static String jvmFailure(Throwable e) {
        if (!(e instanceof VirtualMachineError)) {
            return "";
        }
        return ". The row is recorded failed and retried by its tiers like any exception; the node goes on"
                + (e instanceof OutOfMemoryError
                        ? " (run the JVM with -XX:+ExitOnOutOfMemoryError to stop it when it cannot go on"
                                + " after an OutOfMemoryError)"
                        : "");
    }

    /**
     * A row given up is said once per distinct reason (digits aside: a reason naming the row is one
     * reason for all rows, as the failure groups count them), then at most once a minute with a
     * count, like failures.
     */
    void dead(Row row, Outcome outcome) {
        String reason = outcome.reason() == null ? outcome.kind().name() : outcome.reason();
        long suppressed = task.failures()
                .record("dead: " + FailureGroup.keyOf(reason), 1, task.clock().nanos());
        if (suppressed >= 0) {
            log.log(
                    Level.WARNING,
                    "Task " + task.name() + " row " + row.id() + " is dead after attempt " + (row.retries() + 1) + ": "
                            + reason
                            + (suppressed > 0 ? "; and " + suppressed + " more rows went dead the same way" : "")
                            + ". Its key's later rows go on; POST /actuator/scan/" + task.name()
                            + " {\"action\": \"requeue-dead\"} runs dead rows again");
        }
    }
}
