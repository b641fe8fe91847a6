package io.shardscan.jdbc;

import io.shardscan.core.spi.BacklogCounts;
import io.shardscan.core.spi.FailureGroup;
import io.shardscan.core.spi.Requeue;
import io.shardscan.core.spi.TaskAdmin;
import io.shardscan.core.task.TaskDefinition;
import java.sql.ResultSet;
import java.sql.SQLException;
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
        return countBacklogs(List.of(task)).get(0);
    }

    /**
     * One statement for up to {@link #MAX_TABLES} tables, their counts joined by {@code UNION ALL}, each
     * row led by its table's position; tables whose updated-at columns differ in holding instants apart,
     * as a union of the two kinds would convert one.
     */
    @Override
    public List<BacklogCounts> countBacklogs(List<TaskDefinition> tables) {
        List<TaskSql> sqls = tables.stream().map(statements::sql).toList();
        List<Counted> counted = new ArrayList<>();
        for (int table = 0; table < tables.size(); table++) {
            counted.add(new Counted(tables.get(table), sqls.get(table).names().updatedAtZoned()));
        }
        for (boolean zoned : List.of(false, true)) {
            List<Integer> asked = new ArrayList<>();
            for (int table = 0; table < tables.size(); table++) {
                if (counted.get(table).zoned == zoned) {
                    asked.add(table);
                }
            }
            for (int from = 0; from < asked.size(); from += MAX_TABLES) {
                List<Integer> some = asked.subList(from, Math.min(asked.size(), from + MAX_TABLES));
                String sql = String.join(
                        " UNION ALL ",
                        some.stream()
                                .map(table -> sqls.get(table).countBacklog().sql(table))
                                .toList());
                jdbc.query(sql, rs -> {
                    counted.get(rs.getInt(1)).add(rs);
                });
            }
        }
        return counted.stream().map(Counted::counts).toList();
    }

    /**
     * Tables of one backlog count statement: each adds up to three branches ({@link BacklogCountSql}),
     * so a statement stays within the branches that H2 parses ({@link JdbcFetch#MAX_BRANCHES}).
     */
    static final int MAX_TABLES = JdbcFetch.MAX_BRANCHES / 3;

    /** One table's backlog count, from the rows of its position (see {@link BacklogCountSql}). */
    private final class Counted {

        private final TaskDefinition task;
        private final boolean zoned;
        private final List<BacklogCounts.Group> groups = new ArrayList<>();
        private long dead;
        private long withoutShardKey;
        private long outsideShards;
        private long withoutRetryCount;
        private @Nullable Instant countedAt;

        Counted(TaskDefinition task, boolean zoned) {
            this.task = task;
            this.zoned = zoned;
        }

        /** Reads one row; its first column is the table's position. */
        void add(ResultSet rs) throws SQLException {
            if (rs.getInt(2) == 1) {
                dead = rs.getLong(3);
                withoutShardKey = rs.getLong(4);
                countedAt = dialect.readRowTime(rs, 5, zoned);
                return;
            }
            if (rs.getInt(2) == 2) {
                outsideShards = rs.getLong(4);
                return;
            }
            int retries = rs.getInt(3);
            if (rs.wasNull()) {
                // read as 0 it would count in the first tier, which never fetches it
                withoutRetryCount = rs.getLong(4);
                return;
            }
            groups.add(new BacklogCounts.Group(
                    retries,
                    rs.getLong(4),
                    dialect.readRowTime(rs, 5, zoned),
                    task.delayed() ? rs.getLong(6) : 0,
                    task.delayed() ? rs.getLong(7) : 0,
                    task.delayed() ? RowReader.instant(rs.getTimestamp(8)) : null,
                    rs.getLong(task.delayed() ? 9 : 6)));
        }

        BacklogCounts counts() {
            return new BacklogCounts(groups, dead, withoutShardKey, outsideShards, withoutRetryCount, countedAt);
        }
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
