package io.shardscan.core.task;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Which columns of its table a task's fetch reads: every column, for a handler that takes the raw
 * row or a map, or only those its row type names plus those the engine reads itself. A column
 * matches a name when both have the same {@link #key(String) key}: case and underscores are ignored,
 * so column {@code user_id} matches component {@code userId}. Immutable.
 */
public final class RowColumns {

    /** Every column of the table. */
    public static final RowColumns ALL = new RowColumns(null);

    private final @Nullable Set<String> keys;

    private RowColumns(@Nullable Set<String> keys) {
        this.keys = keys;
    }

    /**
     * The columns matching {@code names} (a row type's components or properties), plus the engine's own.
     *
     * @param names the names a handler's row type reads; empty: no column beyond the engine's
     */
    public static RowColumns matching(Collection<String> names) {
        return new RowColumns(names.stream().map(RowColumns::key).collect(Collectors.toUnmodifiableSet()));
    }

    /** The matching key of a column, component or property name: lower case, without underscores. */
    public static String key(String name) {
        return name.replace("_", "").toLowerCase(Locale.ROOT);
    }

    /** Whether the fetch reads every column of the table. */
    public boolean all() {
        return keys == null;
    }

    /**
     * The columns a fetch of {@code task} selects.
     *
     * @param tableColumns the table's columns as the database spells them
     * @return those of {@code tableColumns} that a handler's type names or the engine reads (the id,
     *     shard key, retry count, due-at and endpoint columns, and the update time for a task with a
     *     max-wait), in the table's order; all of them for {@link #ALL}
     */
    public List<String> select(TaskDefinition task, List<String> tableColumns) {
        if (keys == null) {
            return List.copyOf(tableColumns);
        }
        List<String> engine = engineColumns(task);
        List<String> selected = new ArrayList<>();
        for (String column : tableColumns) {
            if (keys.contains(key(column)) || engine.stream().anyMatch(column::equalsIgnoreCase)) {
                selected.add(column);
            }
        }
        return selected;
    }

    /**
     * The columns the engine reads from a fetched row, whatever the handler reads. The update time
     * only ranks a round in the node's worker budget by its oldest row, for a task with a max-wait
     * (see {@link RetryRules#oldestDue}); decoding a timestamp per row cost a tenth of a round's CPU.
     */
    private static List<String> engineColumns(TaskDefinition task) {
        List<String> columns = new ArrayList<>(List.of(
                task.columns().id(), task.columns().shardKey(), task.columns().retry()));
        if (task.rounds().maxWait() != null) {
            columns.add(task.columns().updatedAt());
        }
        if (task.columns().dueAt() != null) {
            columns.add(task.columns().dueAt());
        }
        if (task.endpointColumn() != null) {
            columns.add(task.endpointColumn());
        }
        return columns;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RowColumns that && Objects.equals(keys, that.keys);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(keys);
    }

    @Override
    public String toString() {
        return keys == null
                ? "all columns"
                : "columns matching " + keys.stream().sorted().toList();
    }
}
