package io.shardscan.jdbc;

import io.shardscan.core.spi.BacklogCounts;
import io.shardscan.core.spi.FailureGroup;
import io.shardscan.core.spi.Requeue;
import io.shardscan.core.spi.TaskAdmin;
import io.shardscan.core.task.TaskDefinition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/** The operator's side of a {@link JdbcTaskStore}: counts, failure groups, a row, requeues. Thread-safe. */
final class JdbcTaskAdmin implements TaskAdmin {

    private final JdbcTemplate jdbc;
    private final JdbcTaskStatements statements;
    private final SqlDialect dialect;
    private final Commits commits;

    JdbcTaskAdmin(JdbcTemplate jdbc, JdbcTaskStatements statements, Commits commits) {
        this.jdbc = jdbc;
        this.statements = statements;
        this.commits = commits;
        this.dialect = statements.dialect();
    }

    @Override
    public long countUnmatched(List<TaskDefinition> tasks) {
        if (tasks.isEmpty()) {
            return 0;
        }
        List<TaskSql> sqls = tasks.stream().map(t -> statements.inspected(t)).toList();
        if (sqls.contains(null)) {
            return -1;
        }
        // CASE rather than NOT (...): a row whose match column is NULL meets no match, and NOT NULL would not count it
        TableNames names = sqls.get(0).names();
        String matched = String.join(
                " OR ",
                sqls.stream()
                        .map(s -> "(" + s.names().match().all(dialect) + ")")
                        .toList());
        Long count = jdbc.queryForObject(
                "SELECT COUNT(*) FROM " + names.qualified(dialect) + " WHERE " + dialect.quote(names.status())
                        + " = " + tasks.get(0).statuses().pending() + " AND CASE WHEN " + matched
                        + " THEN 1 ELSE 0 END = 0",
                Long.class);
        return count == null ? 0 : count;
    }

    @Override
    public BacklogCounts countBacklog(TaskDefinition task) {
        List<BacklogCounts.Group> groups = new ArrayList<>();
        long[] deadWithoutShardKeyOutsideShards = new long[3];
        long[] withoutRetryCount = new long[1];
        Instant[] countedAt = new Instant[1];
        TaskSql sql = statements.sql(task);
        boolean zoned = sql.names().updatedAtZoned();
        int withoutUpdatedAt = task.delayed() ? 8 : 5;
        jdbc.query(sql.countBacklog(), rs -> {
            if (rs.getInt(1) == 1) {
                deadWithoutShardKeyOutsideShards[0] = rs.getLong(2);
                deadWithoutShardKeyOutsideShards[1] = rs.getLong(3);
                countedAt[0] = dialect.readRowTime(rs, 4, zoned);
                return;
            }
            if (rs.getInt(1) == 2) {
                deadWithoutShardKeyOutsideShards[2] = rs.getLong(3);
                return;
            }
            int retries = rs.getInt(2);
            if (rs.wasNull()) {
                // read as 0 it would count in the first tier, which never fetches it
                withoutRetryCount[0] = rs.getLong(3);
                return;
            }
            groups.add(new BacklogCounts.Group(
                    retries,
                    rs.getLong(3),
                    dialect.readRowTime(rs, 4, zoned),
                    task.delayed() ? rs.getLong(5) : 0,
                    task.delayed() ? rs.getLong(6) : 0,
                    task.delayed() ? RowReader.instant(rs.getTimestamp(7)) : null,
                    rs.getLong(withoutUpdatedAt)));
        });
        return new BacklogCounts(
                groups,
                deadWithoutShardKeyOutsideShards[0],
                deadWithoutShardKeyOutsideShards[1],
                deadWithoutShardKeyOutsideShards[2],
                withoutRetryCount[0],
                countedAt[0]);
    }

    @Override
    public int requeueDead(TaskDefinition task) {
        return commits.write(() -> jdbc.update(statements.sql(task).requeueDead()));
    }

    @Override
    public List<FailureGroup> failureGroups(TaskDefinition task, boolean dead, int page, int size, int examples) {
        if (page < 0 || size < 1 || examples < 0) {
            throw new IllegalArgumentException("page must be 0 or more, size 1 or more, examples 0 or more (were "
                    + page + ", " + size + ", " + examples + ")");
        }
        TableNames names = statements.sql(task).names();
        FailureSql sql = FailureSql.of(task, names, dialect, dead);
        List<FailureGroup> groups = jdbc.query(
                sql.groups((long) page * size),
                (rs, n) -> new FailureGroup(
                        rs.getString(1),
                        rs.getLong(2),
                        Objects.requireNonNull(dialect.readRowTime(rs, 3, names.updatedAtZoned())),
                        Objects.requireNonNull(dialect.readRowTime(rs, 4, names.updatedAtZoned())),
                        List.of(),
                        rs.getString(5)),
                size);
        if (examples == 0) {
            return groups;
        }
        return groups.stream()
                .map(group -> new FailureGroup(
                        group.error(),
                        group.rows(),
                        group.firstSeen(),
                        group.lastSeen(),
                        group.error() == null
                                ? jdbc.query(sql.examples(true), (rs, n) -> RowReader.id(rs, 1), examples)
                                : jdbc.query(
                                        sql.examples(false), (rs, n) -> RowReader.id(rs, 1), group.error(), examples),
                        group.example()))
                .toList();
    }

    @Override
    public @Nullable Map<String, Object> readRow(TaskDefinition task, Object id) {
        TableNames names = statements.sql(task).names();
        List<Map<String, Object>> rows = jdbc.query(
                FailureSql.row(task, names, dialect),
                ps -> dialect.bindId(ps, 1, id, names),
                new RowColumnsMapper(dialect, names));
        return rows.isEmpty() ? null : rows.get(0);
    }

    @Override
    public int requeue(TaskDefinition task, Requeue which) {
        TableNames names = statements.sql(task).names();
        FailureSql sql = FailureSql.of(task, names, dialect, which.dead());
        return commits.write(() -> jdbc.update(sql.requeue(which), ps -> {
            int index = 1;
            for (Object id : which.ids()) {
                dialect.bindId(ps, index++, id, names);
            }
            if (which.ids().isEmpty() && which.byError() && which.error() != null) {
                ps.setString(index, FailureGroup.keyOf(which.error()));
            }
        }));
    }
}
