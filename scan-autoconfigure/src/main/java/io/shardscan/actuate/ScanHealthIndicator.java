package io.shardscan.actuate;

import io.shardscan.core.ScanEngine;
import io.shardscan.core.TaskView;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * The scan engine's health on this node, from what its lease keepers last saw (no query of its
 * own): DOWN when a task's coordinator could not be reached at the last heartbeat, so this node
 * processes nothing of it; OUT_OF_SERVICE while a task is paused; UP otherwise. Details per task.
 */
public class ScanHealthIndicator extends AbstractHealthIndicator {

    private final ScanEngine engine;

    public ScanHealthIndicator(ScanEngine engine) {
        super("Scan health check failed");
        this.engine = engine;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        Status status = Status.UP;
        Map<String, Object> tasks = new LinkedHashMap<>();
        for (String name : engine.taskNames()) {
            TaskView task = engine.task(name);
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("coordinatorReachable", task.coordinatorReachable());
            details.put("paused", task.isPaused());
            details.put("ownedShards", task.ownedShards().size());
            details.put("members", task.members().size());
            tasks.put(name, details);
            if (!task.coordinatorReachable()) {
                status = Status.DOWN;
            } else if (task.isPaused() && status == Status.UP) {
                status = Status.OUT_OF_SERVICE;
            }
        }
        builder.status(status).withDetail("node", engine.nodeId()).withDetail("tasks", tasks);
    }
}
