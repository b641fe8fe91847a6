package io.shardscan.dashboard;

import io.shardscan.actuate.ScanEndpointWebExtension.Refusal;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.TaskView;
import io.shardscan.core.spi.FailureGroup;
import io.shardscan.core.spi.Requeue;
import jakarta.servlet.http.HttpServletRequest;
import java.lang.System.Logger.Level;
import java.security.Principal;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The dashboard's failed and dead rows: a page of groups by last error read from the store when the
 * screen asks (never on the overview), and requeue of one row, a group or all of them, after the
 * {@link DashboardWriteGuard}, logging who asked.
 */
@RestController
@RequestMapping("${scan.dashboard.path:/scan}/api/tasks/{task}")
final class FailedRowsController {

    private static final System.Logger log = System.getLogger(FailedRowsController.class.getName());
    static final int MAX_PAGE_SIZE = 100;
    static final int EXAMPLES = 5;

    private final ScanEngine engine;
    private final DashboardWriteGuard guard;

    FailedRowsController(ScanEngine engine, DashboardWriteGuard guard) {
        this.engine = engine;
        this.guard = guard;
    }

    /** One page of the task's dead ({@code dead=true}) or failed rows grouped by last error. */
    @GetMapping("/failures")
    ResponseEntity<Object> failures(
            @PathVariable String task,
            @RequestParam(defaultValue = "true") boolean dead,
            @RequestParam(defaultValue = "0") int page,
            @RequestParam(defaultValue = "20") int size) {
        TaskView view = view(task);
        if (view == null) {
            return unknown(task);
        }
        if (page < 0 || size < 1 || size > MAX_PAGE_SIZE) {
            return ResponseEntity.badRequest()
                    .body(new Refusal(
                            400,
                            task,
                            "page must be 0 or more and size 1 to " + MAX_PAGE_SIZE + " (were " + page + ", " + size
                                    + ")"));
        }
        // one more than asked tells whether a next page exists
        List<FailureGroup> groups = view.failureGroups(dead, page, size + 1, EXAMPLES);
        boolean more = groups.size() > size;
        return ResponseEntity.ok(new FailurePage(
                task,
                dead,
                page,
                size,
                (more ? groups.subList(0, size) : groups)
                        .stream().map(FailureGroupDescriptor::of).toList(),
                more));
    }

    /**
     * One row of the task with every column as text to show ({@link RowDescriptor}), read when asked;
     * 400 when {@code id} is not one of the task's ids (its digits), 404 when no row has it.
     */
    @GetMapping("/rows/{id}")
    ResponseEntity<Object> row(@PathVariable String task, @PathVariable String id) {
        TaskView view = view(task);
        if (view == null) {
            return unknown(task);
        }
        Map<String, Object> row;
        try {
            row = view.readRow(id);
        } catch (IllegalArgumentException e) {
            return ResponseEntity.badRequest().body(new Refusal(400, task, e.getMessage()));
        }
        if (row == null) {
            return ResponseEntity.status(404).body(new Refusal(404, task, "Task " + task + " has no row " + id));
        }
        return ResponseEntity.ok(RowDescriptor.of(task, id, row));
    }

    /** Puts one row, a group or all of the task's dead or failed rows back to pending. */
    @PostMapping("/requeue")
    ResponseEntity<Object> requeue(
            @PathVariable String task, @RequestBody RequeueRequest body, HttpServletRequest request) {
        Refusal refusal = guard.refusal(task, request);
        if (refusal != null) {
            return ResponseEntity.status(refusal.status()).body(refusal);
        }
        TaskView view = view(task);
        if (view == null) {
            return unknown(task);
        }
        Requeue which;
        int requeued;
        try {
            which = body.requeue();
            // ids as text or numbers: the task's view parses them, refusing one that is not its own
            requeued = view.requeue(which);
        } catch (IllegalArgumentException e) {
            return ResponseEntity.badRequest().body(new Refusal(400, task, e.getMessage()));
        }
        Principal principal = request.getUserPrincipal();
        log.log(
                Level.INFO,
                "Scan dashboard: requeue of " + describe(which) + " of task " + task + " on node " + engine.nodeId()
                        + " by " + (principal == null ? "anonymous" : principal.getName()) + ", " + requeued
                        + " rows requeued");
        return ResponseEntity.ok(Map.of("task", task, "requeued", requeued));
    }

    private @Nullable TaskView view(String task) {
        return engine.taskNames().contains(task) ? engine.task(task) : null;
    }

    private ResponseEntity<Object> unknown(String task) {
        if (engine.rangeTaskNames().contains(task)) {
            // a range task keeps its failures in the range failures table, not in its rows' status
            return ResponseEntity.status(404)
                    .body(new Refusal(
                            404,
                            task,
                            "Task '" + task + "' is a range task (mode: range): its failed rows are not grouped here;"
                                    + " GET /actuator/scan/" + task + " (or this API's tasks/" + task
                                    + ") shows their count and the most recent, and the action requeue runs them"
                                    + " again (the Jobs screen's button). Status tasks here: " + engine.taskNames()));
        }
        return ResponseEntity.status(404)
                .body(new Refusal(
                        404,
                        task,
                        "No task '" + task + "' on node " + engine.nodeId() + "; known: " + engine.taskNames()));
    }

    private static String describe(Requeue which) {
        String rows = which.dead() ? "dead rows" : "failed rows";
        if (!which.ids().isEmpty()) {
            return rows + " " + which.ids();
        }
        return which.byError() ? rows + " with error '" + which.error() + "'" : "all " + rows;
    }

    /**
     * One page of groups.
     *
     * @param more whether a next page exists
     */
    record FailurePage(
            String task, boolean dead, int page, int size, List<FailureGroupDescriptor> groups, boolean more) {}

    /**
     * What to requeue: {@code ids} (as text, as the page sends them, or as numbers), or every row whose
     * last error is {@code error} when {@code byError} (a {@code null} error: rows without one), or all
     * when {@code all}; dead rows unless {@code dead} is {@code false}.
     */
    record RequeueRequest(
            @Nullable Boolean dead,
            @Nullable List<Object> ids,
            @Nullable Boolean byError,
            @Nullable String error,
            @Nullable Boolean all) {

        Requeue requeue() {
            boolean dead = !Boolean.FALSE.equals(this.dead);
            if (ids != null && !ids.isEmpty()) {
                return Requeue.rows(dead, ids);
            }
            if (Boolean.TRUE.equals(byError)) {
                return Requeue.withError(dead, error);
            }
            if (Boolean.TRUE.equals(all)) {
                return Requeue.all(dead);
            }
            throw new IllegalArgumentException(
                    "say what to requeue: {\"ids\": [...]}, {\"byError\": true, \"error\": \"...\"} or {\"all\": true}");
        }
    }
}
