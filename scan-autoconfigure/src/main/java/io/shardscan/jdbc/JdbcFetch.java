package io.shardscan.jdbc;

import io.shardscan.core.spi.FetchRequest;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.TaskDefinition;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.ResultSetExtractor;

/** A store's reads of due rows: the fetch of one page, and the idle probe of many shards and tiers at once. Thread-safe. */
final class JdbcFetch {

    private final JdbcTemplate jdbc;
    private final SqlDialect dialect;
    private final JdbcTaskStatements statements;
    private final RowReader reader;

    JdbcFetch(JdbcTemplate jdbc, JdbcTaskStatements statements, RowReader reader) {
        this.jdbc = jdbc;
        this.dialect = statements.dialect();
        this.statements = statements;
        this.reader = reader;
    }

    /** See {@link io.shardscan.core.spi.TaskStore#fetch}. */
    List<Row> fetch(TaskDefinition task, FetchRequest asked) {
        TaskSql sql = statements.sql(task);
        FetchRequest request = bindable(asked, sql.names().endpointNumeric());
        List<Row> page = jdbc.query(
                sql.fetch().sql(request), ps -> bind(ps, 1, task, sql, request), (ResultSetExtractor<List<Row>>)
                        rs -> reader.rows(rs, task.name(), sql.names(), request.limit()));
        return page == null ? List.of() : page;
    }

    /**
     * One statement: a branch per request, each an index probe that stops at the first due row of its
     * shard and tier, request {@code i} in the table of {@code tasks.get(i)} (the parts of a sharded task
     * in one data source, or one task's).
     */
    List<Integer> dueRequests(List<TaskDefinition> tasks, List<FetchRequest> asked) {
        if (asked.isEmpty()) {
            return List.of();
        }
        List<TaskSql> sqls = tasks.stream().map(statements::sql).toList();
        List<FetchRequest> requests = java.util.stream.IntStream.range(0, asked.size())
                .mapToObj(i -> bindable(asked.get(i), sqls.get(i).names().endpointNumeric()))
                .toList();
        List<Integer> due = new ArrayList<>();
        int from = 0;
        while (from < requests.size()) {
            // as many branches as a statement takes (see MAX_BRANCHES and MAX_PARAMETERS)
            int to = from;
            int parameters = 0;
            while (to < requests.size()
                    && (to == from
                            || (to - from < MAX_BRANCHES
                                    && parameters + parameters(sqls.get(to), requests.get(to)) <= MAX_PARAMETERS))) {
                parameters += parameters(sqls.get(to), requests.get(to));
                to++;
            }
            int offset = from;
            int end = to;
            jdbc.query(
                    TaskSql.Fetch.probe(sqls.subList(from, to), requests.subList(from, to)),
                    ps -> {
                        int index = 1;
                        for (int i = offset; i < end; i++) {
                            index = bind(ps, index, tasks.get(i), sqls.get(i), requests.get(i));
                        }
                    },
                    rs -> {
                        due.add(offset + rs.getInt(1));
                    });
            from = to;
        }
        return due;
    }

    /** Branches of one probe statement: H2 parses a {@code UNION ALL} recursively, and overflows its stack at about 5 000. */
    static final int MAX_BRANCHES = 1_000;

    /**
     * Bind parameters of one statement that every supported driver takes (PostgreSQL's and
     * MariaDB's protocols count them in 16 bits), with room to spare: a branch binds more with each
     * banned endpoint it leaves out.
     */
    static final int MAX_PARAMETERS = 30_000;

    /** At most how many parameters {@link #bind} binds for {@code request}. */
    private static int parameters(TaskSql sql, FetchRequest request) {
        return 5
                + (sql.fetch().endpoint() == null
                        ? 0
                        : request.excludedEndpoints().size());
    }

    /** Binds a fetch's parameters from {@code index} on (see {@link TaskSql.Fetch#sql}); returns the next index. */
    private int bind(PreparedStatement ps, int from, TaskDefinition task, TaskSql sql, FetchRequest request)
            throws SQLException {
        int index = from;
        ps.setInt(index++, task.localShard(request.shard()));
        if (sql.fetch().endpoint() != null) {
            for (String endpoint : request.excludedEndpoints()) {
                if (sql.names().endpointNumeric()) {
                    ps.setLong(index++, Long.parseLong(endpoint));
                } else {
                    ps.setString(index++, endpoint);
                }
            }
        }
        Object after = request.afterText() != null ? request.afterText() : request.afterId();
        if (!sql.fetch().keyset(request)) {
            // a text id's pass starts with no position
        } else if (sql.fetch().due() == null) {
            dialect.bindId(ps, index++, after, sql.names());
        } else {
            index = dialect.bindAfter(ps, index, Timestamp.from(request.afterDue()), after, sql.names());
        }
        ps.setInt(index++, request.limit());
        return index;
    }

    /**
     * The request without the excluded endpoints a numeric endpoint column cannot hold (a ban left
     * from when the column held text, say): they match no row, and binding them would fail every fetch.
     */
    private static FetchRequest bindable(FetchRequest request, boolean numeric) {
        if (!numeric || request.excludedEndpoints().stream().allMatch(JdbcFetch::wholeNumber)) {
            return request;
        }
        return request.withExcludedEndpoints(request.excludedEndpoints().stream()
                .filter(JdbcFetch::wholeNumber)
                .toList());
    }

    private static boolean wholeNumber(String endpoint) {
        try {
            Long.parseLong(endpoint);
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
