package io.shardscan.dashboard;

import io.shardscan.actuate.ScanDescriptor;
import io.shardscan.actuate.ScanEndpoint;
import io.shardscan.actuate.ScanEndpointWebExtension;
import io.shardscan.actuate.ScanEndpointWebExtension.Refusal;
import jakarta.servlet.http.HttpServletRequest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The dashboard's JSON API under {@code scan.dashboard.path}{@code /api}: reads through the scan
 * endpoint (the same engine and cached backlog as {@code /actuator/scan}, no query), writes through
 * its actions after the {@link DashboardWriteGuard} let them pass, logging the caller's principal.
 */
@RestController
@RequestMapping("${scan.dashboard.path:/scan}/api")
final class DashboardApiController {

    private final ScanEndpoint endpoint;
    private final ScanEndpointWebExtension web;
    private final RateHistory rates;
    private final DashboardWriteGuard guard;
    private final double rateSampleSeconds;

    DashboardApiController(
            ScanEndpoint endpoint, RateHistory rates, DashboardWriteGuard guard, double rateSampleSeconds) {
        this.endpoint = endpoint;
        this.web = new ScanEndpointWebExtension(endpoint);
        this.rates = rates;
        this.guard = guard;
        this.rateSampleSeconds = rateSampleSeconds;
    }

    /** Every task and range job of this node, its members' counters, shard maps and rows/s history. */
    @GetMapping("/overview")
    DashboardOverview overview() {
        ScanDescriptor scan = endpoint.scan();
        Map<String, Map<String, List<Double>>> byTask = new LinkedHashMap<>();
        scan.tasks().keySet().forEach(task -> byTask.put(task, rates.rates(task)));
        return new DashboardOverview(scan.node(), guard.writeEnabled(), rateSampleSeconds, scan, byTask);
    }

    /** One task as {@code GET /actuator/scan/{task}} shows it, or 404. */
    @GetMapping("/tasks/{task}")
    ResponseEntity<Object> task(@PathVariable String task) {
        return entity(web.task(task));
    }

    /**
     * Runs an action of the scan endpoint ({@code pause}, {@code resume}, {@code requeue-dead},
     * {@code lift-ban}, ...) when the guard lets the request write.
     */
    @PostMapping("/tasks/{task}/actions")
    ResponseEntity<Object> act(@PathVariable String task, @RequestBody ActionRequest body, HttpServletRequest request) {
        Refusal refusal = guard.refusal(task, request);
        if (refusal != null) {
            return ResponseEntity.status(refusal.status()).body(refusal);
        }
        return entity(web.act(task, body.action(), body.endpoint(), new RequestSecurityContext(request)));
    }

    private static ResponseEntity<Object> entity(WebEndpointResponse<Object> response) {
        return ResponseEntity.status(response.getStatus()).body(response.getBody());
    }

    /**
     * A write's body.
     *
     * @param action the scan endpoint's action name
     * @param endpoint the endpoint whose ban {@code lift-ban} lifts
     */
    record ActionRequest(@Nullable String action, @Nullable String endpoint) {}
}
