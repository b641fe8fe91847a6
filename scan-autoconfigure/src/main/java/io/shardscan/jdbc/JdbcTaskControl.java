package io.shardscan.jdbc;

import io.shardscan.core.spi.TaskControl;
import io.shardscan.core.task.TaskDefinition;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

/** The controller's side of a {@link JdbcTaskStore}: the pause in {@code scan_task}, and rows left. Thread-safe. */
final class JdbcTaskControl implements TaskControl {

    private final JdbcTemplate jdbc;
    private final JdbcTaskStatements statements;
    private final Commits commits;

    JdbcTaskControl(JdbcTemplate jdbc, JdbcTaskStatements statements, Commits commits) {
        this.jdbc = jdbc;
        this.statements = statements;
        this.commits = commits;
    }

    @Override
    public boolean pausedEverywhere(TaskDefinition task) {
        List<Integer> paused =
                jdbc.queryForList("SELECT paused FROM scan_task WHERE task = ?", Integer.class, task.name());
        return !paused.isEmpty() && paused.get(0) != 0;
    }

    @Override
    public Set<String> pausedEverywhere(List<TaskDefinition> tasks) {
        if (tasks.isEmpty()) {
            return Set.of();
        }
        return new HashSet<>(jdbc.queryForList(
                "SELECT task FROM scan_task WHERE paused <> 0 AND task IN (" + "?, ".repeat(tasks.size() - 1) + "?)",
                String.class,
                tasks.stream().map(TaskDefinition::name).toArray()));
    }

    @Override
    public void pauseEverywhere(TaskDefinition task, boolean paused, String by, Instant at) {
        Object[] values = {paused ? 1 : 0, by, Timestamp.from(at), task.name()};
        String update = "UPDATE scan_task SET paused = ?, changed_by = ?, changed_at = ? WHERE task = ?";
        if (commits.write(() -> jdbc.update(update, values)) > 0) {
            return;
        }
        try {
            commits.write(() -> jdbc.update(
                    "INSERT INTO scan_task (paused, changed_by, changed_at, task) VALUES (?, ?, ?, ?)", values));
        } catch (DuplicateKeyException e) {
            // another node inserted it first: set it as asked
            commits.write(() -> jdbc.update(update, values));
        }
    }

    @Override
    public boolean anyLeft(TaskDefinition task) {
        return !jdbc.queryForList(statements.sql(task).anyLeft(), Integer.class).isEmpty();
    }
}
