package io.shardscan.autoconfigure;

import io.shardscan.core.task.RunMode;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Finds settings written under a range task ({@code mode: range}) that only a status-column task has,
 * which would otherwise pass silently (a range task reads every id once and writes nothing back), and
 * range settings under a status-column task. Reads the keys as written, so a value equal to the
 * default is found too. Stateless.
 */
final class RangeTaskSettings {

    private static final ConfigurationPropertyName TASKS = ConfigurationPropertyName.of("scan.tasks");

    /** What only a status-column task reads: its columns, shards, outcomes, timing and order. */
    static final Set<String> STATUS_ONLY = Set.of(
            "status-column",
            "retry-column",
            "updated-at-column",
            "last-error-column",
            "shard-column",
            "shard-key-column",
            "shards",
            "pending-status",
            "done-status",
            "dead-status",
            "on-exhausted",
            "round-timeout",
            "handler-timeout",
            "ordering",
            "match-overlap",
            "delay",
            "priority",
            "max-wait");

    /** What only a range task reads. */
    static final Set<String> RANGE_ONLY = Set.of("range-size", "stall-timeout", "follow-grace");

    private RangeTaskSettings() {}

    /** One problem per task that has settings of the other mode, naming them and the fix; empty when none. */
    static List<String> problems(ConfigurableEnvironment environment, Map<String, TaskProperties> tasks) {
        Map<String, Set<String>> written = written(environment);
        List<String> problems = new java.util.ArrayList<>();
        tasks.forEach((name, task) -> {
            Set<String> keys = written.getOrDefault(name, Set.of());
            if (task.rangeMode() && keys.contains("follow-grace") && task.getRun() != RunMode.FOLLOW) {
                problems.add("scan.tasks." + name + ".follow-grace is set but the task's run is "
                        + (task.getRun() == null
                                ? "once (the default for mode: range)"
                                : task.getRun()
                                        .name()
                                        .toLowerCase(java.util.Locale.ROOT)
                                        .replace('_', '-'))
                        + ", which reads the ids its run snapshotted and waits for no late commit: set scan.tasks."
                        + name + ".run=follow to keep following the table's new ids, or remove follow-grace");
            }
            Set<String> wrong = new TreeSet<>(keys);
            wrong.retainAll(task.rangeMode() ? STATUS_ONLY : RANGE_ONLY);
            if (wrong.isEmpty()) {
                return;
            }
            String listed = String.join(", ", wrong);
            problems.add(
                    task.rangeMode()
                            ? "scan.tasks." + name + " runs in range mode (mode: range), which reads each id once and"
                                    + " writes nothing back, so it has no " + listed + ": remove "
                                    + (wrong.size() == 1 ? "it" : "them") + ", or remove mode: range to scan by a"
                                    + " status column"
                            : "scan.tasks." + name + "." + wrong.iterator().next() + " is set but the task has a"
                                    + " status column; " + listed + " belong to range mode: set scan.tasks." + name
                                    + ".mode=range for a job over ids (a table without a status column), or remove "
                                    + (wrong.size() == 1 ? "it" : "them"));
        });
        return problems;
    }

    /** The keys written directly under each {@code scan.tasks.<name>}, in dashed form, by task name as written. */
    private static Map<String, Set<String>> written(ConfigurableEnvironment environment) {
        Map<String, Set<String>> written = new java.util.LinkedHashMap<>();
        for (PropertySource<?> source : environment.getPropertySources()) {
            if (source instanceof SystemEnvironmentPropertySource
                    || source.getName().equals("configurationProperties")) {
                continue;
            }
            if (!(ConfigurationPropertySource.from(source) instanceof IterableConfigurationPropertySource iterable)) {
                continue;
            }
            iterable.stream()
                    .filter(name -> TASKS.isAncestorOf(name) && name.getNumberOfElements() > 3)
                    .forEach(name -> written.computeIfAbsent(
                                    name.getElement(2, ConfigurationPropertyName.Form.ORIGINAL),
                                    t -> new LinkedHashSet<>())
                            .add(name.getElement(3, ConfigurationPropertyName.Form.DASHED)));
        }
        return written;
    }
}
