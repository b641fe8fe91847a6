package io.shardscan.actuate;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What {@code GET /actuator/scan} returns: this node and each of its tasks. Immutable.
 *
 * @param node this node's id
 * @param tasks each task by name, in configuration order
 * @param ranges each range task ({@code mode: range}) by name, in configuration order
 * @param notRunHere the tasks configured for the cluster that this node does not run, each with why
 *     ({@code scan.tasks.X.enabled} false here, or {@code node-tags} this node lacks)
 */
public record ScanDescriptor(
        String node,
        Map<String, TaskDescriptor> tasks,
        Map<String, RangeTaskDescriptor> ranges,
        Map<String, String> notRunHere) {

    public ScanDescriptor {
        tasks = Collections.unmodifiableMap(new LinkedHashMap<>(tasks));
        ranges = Collections.unmodifiableMap(new LinkedHashMap<>(ranges));
        notRunHere = Collections.unmodifiableMap(new LinkedHashMap<>(notRunHere));
    }

    /** A node without range tasks. */
    public ScanDescriptor(String node, Map<String, TaskDescriptor> tasks) {
        this(node, tasks, Map.of(), Map.of());
    }
}
