package io.shardscan.actuate;

import io.shardscan.core.RangeView;
import io.shardscan.core.TaskView;
import io.shardscan.core.task.RunMode;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The HTTP side of {@link ScanEndpoint}: 404 with a message for an unknown task, 403 naming
 * {@code management.endpoint.scan.access} for a write while writes are off, 400 for an unknown action
 * and for a {@code lift-ban} without an endpoint or on a task without an endpoint column.
 */
@EndpointWebExtension(endpoint = ScanEndpoint.class)
public class ScanEndpointWebExtension {

    static final int STATUS_FORBIDDEN = 403;

    private final ScanEndpoint endpoint;

    public ScanEndpointWebExtension(ScanEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    /** {@code GET /actuator/scan/{task}}: the task, or 404. */
    @ReadOperation
    public WebEndpointResponse<Object> task(@Selector String task) {
        RangeView range = endpoint.rangeView(task);
        if (range != null) {
            return new WebEndpointResponse<>(endpoint.describe(range));
        }
        TaskView view = endpoint.view(task);
        if (view == null) {
            return refusal(WebEndpointResponse.STATUS_NOT_FOUND, task, endpoint.unknownTaskMessage(task));
        }
        return new WebEndpointResponse<>(endpoint.describe(view));
    }

    /** {@code POST /actuator/scan/{task}} with {@code {"action": "..."}}: 200 with what was done, or 403, 404, 400. */
    @WriteOperation
    public WebEndpointResponse<Object> act(
            @Selector String task, String action, @Nullable String endpoint, SecurityContext securityContext) {
        if (!this.endpoint.writeEnabled()) {
            return refusal(STATUS_FORBIDDEN, task, ScanEndpoint.writeDisabledMessage());
        }
        RangeView range = this.endpoint.rangeView(task);
        TaskView view = this.endpoint.view(task);
        if (view == null && range == null) {
            return refusal(WebEndpointResponse.STATUS_NOT_FOUND, task, this.endpoint.unknownTaskMessage(task));
        }
        Optional<ScanAction> known = ScanAction.of(action);
        if (known.isEmpty()) {
            return refusal(WebEndpointResponse.STATUS_BAD_REQUEST, task, ScanEndpoint.unknownActionMessage(action));
        }
        if (range != null) {
            try {
                return new WebEndpointResponse<>(this.endpoint.perform(task, range, known.get(), securityContext));
            } catch (IllegalArgumentException e) {
                return refusal(WebEndpointResponse.STATUS_BAD_REQUEST, task, e.getMessage());
            }
        }
        if (known.get() == ScanAction.LIFT_BAN
                && (endpoint == null || endpoint.isBlank() || view.definition().endpoints() == null)) {
            return refusal(
                    WebEndpointResponse.STATUS_BAD_REQUEST,
                    task,
                    endpoint == null || endpoint.isBlank()
                            ? ScanAction.LIFT_BAN_NEEDS_ENDPOINT
                            : "task " + task + " has no endpoint column (scan.tasks." + task
                                    + ".endpoint-column), so nothing is banned");
        }
        if (known.get() == ScanAction.START && view.runMode() == RunMode.FOREVER) {
            return refusal(
                    WebEndpointResponse.STATUS_BAD_REQUEST,
                    task,
                    "task " + task + " runs forever (scan.tasks." + task + ".run), so it has no run to start;"
                            + " set run: until-empty to end it when its table is empty");
        }
        return new WebEndpointResponse<>(this.endpoint.perform(task, view, known.get(), endpoint, securityContext));
    }

    private static WebEndpointResponse<Object> refusal(int status, String task, String message) {
        return new WebEndpointResponse<>(new Refusal(status, task, message), status);
    }

    /**
     * Why a request was refused. Immutable.
     *
     * @param status the HTTP status
     * @param task the task named in the path
     * @param message what is wrong and how to fix it
     */
    public record Refusal(int status, String task, String message) {}
}
