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
 */
public record ScanDescriptor(String node, Map<String, TaskDescriptor> tasks, Map<String, RangeTaskDescriptor> ranges) {

    public ScanDescriptor {
        tasks = Collections.unmodifiableMap(new LinkedHashMap<>(tasks));
        ranges = Collections.unmodifiableMap(new LinkedHashMap<>(ranges));
    }

    /** A node without range tasks. */
    public ScanDescriptor(String node, Map<String, TaskDescriptor> tasks) {
        this(node, tasks, Map.of());
    }
}
