package io.shardscan.jdbc;

import io.shardscan.core.Archive;
import io.shardscan.core.BacklogCounts;
import io.shardscan.core.FailureGroup;
import io.shardscan.core.FetchRequest;
import io.shardscan.core.InvalidTaskException;
import io.shardscan.core.Requeue;
import io.shardscan.core.Row;
import io.shardscan.core.RowKey;
import io.shardscan.core.SchemaReport;
import io.shardscan.core.TaskDefinition;
import io.shardscan.core.TaskRuns;
import io.shardscan.core.TaskStore;
import io.shardscan.core.TextKeys;
import io.shardscan.core.WriteBack;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.ResultSetExtractor;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A {@link TaskStore} over JDBC for PostgreSQL, MySQL/MariaDB and H2. The write-back runs in one
 * transaction that first locks the shard's fence row, so a newer owner's fence and a stale
 * owner's write-back are serialized and the stale one changes nothing. Thread-safe.
 */
public final class JdbcTaskStore implements TaskStore {

    /** A shard's fence: epoch 1 for its first owner, else the next epoch. */
    private static final RowUpsert FENCE = new RowUpsert(
            "scan_fence",
            List.of("task", "shard"),
            "task, shard, epoch, owner",
            "?, ?, 1, ?",
            "epoch = scan_fence.epoch + 1, owner = ?");

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final Commits commits;
    private final SqlDialect dialect;
    private final TableInspector inspector;
    private final Map<String, TaskSql> statements;
    private final Map<String, ArchiveSql> archives;
    private final Map<String, Row.Layout> layouts;
    private final JdbcTaskRuns runs;

    /**
     * A store over {@code dataSource} whose transactions are a {@link DataSourceTransactionManager}
     * of its own: for applications that use plain JDBC on that DataSource.
     */
    public JdbcTaskStore(DataSource dataSource) {
        this(dataSource, new DataSourceTransactionManager(dataSource));
    }

    /**
     * A store over {@code dataSource} whose transactions, the write-back and a transactional
     * handler's work alike, run through {@code transactionManager}: the application's, which must
     * expose its transactions as JDBC connections of {@code dataSource} (a
     * {@code DataSourceTransactionManager} or a {@code JpaTransactionManager} over it), so that the
     * handler's own statements (a Spring Data JPA {@code save}) and the fenced write-back commit or
     * roll back together.
     */
    public JdbcTaskStore(DataSource dataSource, PlatformTransactionManager transactionManager) {
        this(dataSource, transactionManager, SqlDialect.detect(Objects.requireNonNull(dataSource, "dataSource")));
    }

    /** The same on a database of {@code dialect}, not detected: for a database Shardscan ships no dialect for. */
    public JdbcTaskStore(DataSource dataSource, PlatformTransactionManager transactionManager, SqlDialect dialect) {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(transactionManager, "transactionManager");
        this.jdbc = new JdbcTemplate(dataSource);
        this.transactions = new TransactionTemplate(transactionManager);
        this.commits = new Commits(dataSource, transactions);
        this.dialect = Objects.requireNonNull(dialect, "dialect");
        this.inspector = new TableInspector(dataSource, dialect);
        this.statements = new ConcurrentHashMap<>();
        this.archives = new ConcurrentHashMap<>();
        this.layouts = new ConcurrentHashMap<>();
        this.runs = new JdbcTaskRuns(jdbc, transactions);
    }

    /** {@code unbounded}'s view whose statements run through {@code jdbc}; it shares the statements inspected. */
    private JdbcTaskStore(JdbcTaskStore unbounded, JdbcTemplate jdbc) {
        this.jdbc = jdbc;
        this.transactions = unbounded.transactions;
        this.commits = unbounded.commits;
        this.dialect = unbounded.dialect;
        this.inspector = unbounded.inspector;
        this.statements = unbounded.statements;
        this.archives = unbounded.archives;
        this.layouts = unbounded.layouts;
        this.runs = new JdbcTaskRuns(jdbc, transactions);
    }

    /**
     * A view whose every statement carries a JDBC query timeout of {@code timeout} in whole seconds,
     * rounded up (PostgreSQL's, MariaDB's and H2's drivers all cancel a statement that waits on a lock
     * past it). Its transactions are this store's: the application's statements in a transactional
     * handler join them without a timeout of their own, only the view's write-back carries one.
     */
    @Override
    public TaskStore boundedBy(Duration timeout) {
        JdbcTemplate bounded = new JdbcTemplate(Objects.requireNonNull(jdbc.getDataSource()));
        bounded.setQueryTimeout(BoundedJdbc.seconds(timeout));
        return new JdbcTaskStore(this, bounded);
    }

    /** A statement cancelled by its query timeout, as the dialect's driver reports it, anywhere in the causes. */
    @Override
    public boolean timedOut(RuntimeException failure) {
        return BoundedJdbc.cancelled(failure, dialect);
    }

    @Override
    public TaskRuns runs() {
        return runs;
    }

    @Override
    public boolean anyLeft(TaskDefinition task) {
        return !jdbc.queryForList(sql(task).anyLeft(), Integer.class).isEmpty();
    }

    @Override
    public SchemaReport inspect(TaskDefinition task) {
        TableInspector.Inspection inspection = inspector.inspect(task);
        if (inspection.names() != null) {
            statements.put(
                    task.name(),
                    TaskSql.of(task, inspection.names(), inspection.report().columns(), dialect));
        }
        if (inspection.archive() != null) {
            archives.put(task.name(), inspection.archive());
        }
        return inspection.report();
    }

    @Override
    public List<Row> fetch(TaskDefinition task, FetchRequest asked) {
        TaskSql sql = sql(task);
        FetchRequest request = bindable(asked, sql.names().endpointNumeric());
        List<Row> page =
                jdbc.query(sql.fetch().sql(request), ps -> bind(ps, 1, sql, request), (ResultSetExtractor<List<Row>>)
                        rs -> rows(rs, task.name(), sql.names(), request.limit()));
        return page == null ? List.of() : page;
    }

    /** One statement: a branch per request, each an index probe that stops at the first due row of its shard and tier. */
    @Override
    public List<Integer> dueRequests(TaskDefinition task, List<FetchRequest> asked) {
        if (asked.isEmpty()) {
            return List.of();
        }
        TaskSql sql = sql(task);
        List<FetchRequest> requests = asked.stream()
                .map(request -> bindable(request, sql.names().endpointNumeric()))
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
                                    && parameters + parameters(sql, requests.get(to)) <= MAX_PARAMETERS))) {
                parameters += parameters(sql, requests.get(to++));
            }
            List<FetchRequest> part = requests.subList(from, to);
            int offset = from;
            jdbc.query(
                    sql.fetch().probe(part),
                    ps -> {
                        int index = 1;
                        for (FetchRequest request : part) {
                            index = bind(ps, index, sql, request);
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
    private int bind(PreparedStatement ps, int from, TaskSql sql, FetchRequest request) throws SQLException {
        int index = from;
        ps.setInt(index++, request.shard());
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
        if (!numeric || request.excludedEndpoints().stream().allMatch(JdbcTaskStore::wholeNumber)) {
            return request;
        }
        return request.withExcludedEndpoints(request.excludedEndpoints().stream()
                .filter(JdbcTaskStore::wholeNumber)
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

    @Override
    public List<RowKey> failedRows(TaskDefinition task, int shard) {
        boolean due = task.delayed();
        return jdbc.query(
                sql(task).failedRows(),
                (rs, n) -> {
                    Object id = id(rs, 2);
                    return new RowKey(
                            shardKey(rs, 1, rs.getObject(1)),
                            number(id),
                            due ? instant(rs.getTimestamp(3)) : null,
                            id instanceof String text ? text : null);
                },
                shard);
    }

    /**
     * Raises the fence, or inserts epoch 1 for the shard's first owner (one {@link RowUpsert}: on
     * MySQL and MariaDB one statement, so that two first fences at once do not deadlock), and reads
     * it back in the same transaction, which holds the row's lock until it commits, so two owners
     * can never be issued one epoch. A dialect with a {@link SqlDialect#raiseFence() statement}
     * that does all of it under the same row lock runs that instead.
     */
    @Override
    public long fence(TaskDefinition task, int shard, String owner) {
        // a rerun after another node's first fence of the same moment raises that one
        return Rerun.onDeadlockOrDuplicateKey(() -> raiseFence(task, shard, owner));
    }

    private long raiseFence(TaskDefinition task, int shard, String owner) {
        String inOne = dialect.raiseFence();
        Long epoch = inOne != null
                ? commits.write(() -> jdbc.queryForObject(inOne, Long.class, task.name(), shard, owner))
                : transactions.execute(status -> {
                    FENCE.write(
                            jdbc,
                            dialect,
                            new Object[] {task.name(), shard},
                            new Object[] {task.name(), shard, owner},
                            new Object[] {owner});
                    return currentFence(task, shard);
                });
        if (epoch == null) {
            throw new IllegalStateException("the fence of shard " + shard + " of task " + task.name() + " is gone");
        }
        return epoch;
    }

    @Override
    public Optional<String> fenceOwner(TaskDefinition task, int shard) {
        return jdbc
                .queryForList(
                        "SELECT owner FROM scan_fence WHERE task = ? AND shard = ?", String.class, task.name(), shard)
                .stream()
                .filter(Objects::nonNull)
                .findFirst();
    }

    @Override
    public boolean writeBack(TaskDefinition task, WriteBack batch) {
        TaskSql sql = sql(task);
        // batch.at() is the node's clock: the statements stamp the rows with the database's
        if (dialect.fencesInOneStatement()
                && batch.run() == 0
                && batch.failed().isEmpty()
                && batch.dead().isEmpty()) {
            return Rerun.onDeadlock(() -> commits.write(() -> markDoneFenced(task, sql, batch)));
        }
        Boolean written = Rerun.onDeadlock(() -> transactions.execute(status -> {
            boolean holds = batch.run() == 0
                    ? holdsFence(task, batch.shard(), batch.epoch())
                    : runs.countUnderFence(task, batch.shard(), batch.epoch(), batch.run(), batch.counts());
            if (!holds) {
                return false;
            }
            if (!batch.done().isEmpty()) {
                jdbc.update(
                        sql.markDone() + dialect.anyOf(batch.done().size()),
                        ps -> dialect.bindIds(ps, 1, batch.done(), sql.names()));
            }
            int errorLength = sql.names().lastErrorLength();
            updateFailures(sql.markFailed(), batch.failed(), errorLength, sql.names());
            updateFailures(sql.markDead(), batch.dead(), errorLength, sql.names());
            return true;
        }));
        return Boolean.TRUE.equals(written);
    }

    /**
     * The common round, every row done: one statement writes them only while the fence holds the
     * epoch. When it changes fewer rows than asked, the fence tells a moved epoch from rows that
     * were no longer pending.
     */
    private boolean markDoneFenced(TaskDefinition task, TaskSql sql, WriteBack batch) {
        int updated =
                jdbc.update(sql.markDoneFenced() + dialect.anyOf(batch.done().size()), ps -> {
                    ps.setString(1, task.name());
                    ps.setInt(2, batch.shard());
                    ps.setLong(3, batch.epoch());
                    dialect.bindIds(ps, 4, batch.done(), sql.names());
                });
        return updated == batch.done().size() || currentFence(task, batch.shard()) == batch.epoch();
    }

    /**
     * One transaction: the fence row's shared lock (a new owner's fence waits for the batch, and a
     * batch after it sees the new epoch and changes nothing), the due rows' ids with their row
     * locks, then the copy and the delete of exactly those ids. A count that differs from the ids
     * rolls the batch back, so a row is never deleted without its copy.
     */
    @Override
    public int archive(TaskDefinition task, int shard, long epoch) {
        Archive archive = task.archive();
        if (archive == null) {
            throw new IllegalStateException("scan.tasks." + task.name() + ".archive is not configured");
        }
        ArchiveSql sql = archiveSql(task);
        TableNames names = sql(task).names();
        Integer moved = Rerun.onDeadlock(() -> transactions.execute(status -> {
            if (!holdsFence(task, shard, epoch)) {
                return -1;
            }
            List<Object> ids = jdbc.query(sql.select(), (rs, n) -> id(rs, 1), shard, archive.batch());
            if (ids.isEmpty()) {
                return 0;
            }
            if (sql.insert() != null) {
                requireAll(
                        jdbc.update(sql.insert() + dialect.anyOf(ids.size()), ps -> dialect.bindIds(ps, 1, ids, names)),
                        ids);
            }
            return requireAll(
                    jdbc.update(sql.delete() + dialect.anyOf(ids.size()), ps -> dialect.bindIds(ps, 1, ids, names)),
                    ids);
        }));
        return moved == null ? 0 : moved;
    }

    /** The rows a statement changed, when it changed every locked row; else the batch rolls back. */
    private static int requireAll(int changed, List<Object> ids) {
        if (changed != ids.size()) {
            throw new IllegalStateException(
                    "an archive batch changed " + changed + " of the " + ids.size() + " rows it locked; rolled back");
        }
        return changed;
    }

    /** Whether the shard's fence still holds {@code epoch}, under a shared lock until the transaction ends. */
    private boolean holdsFence(TaskDefinition task, int shard, long epoch) {
        List<Long> fence = jdbc.queryForList(
                "SELECT epoch FROM scan_fence WHERE task = ? AND shard = ?" + dialect.shareLock(),
                Long.class,
                task.name(),
                shard);
        return fence.size() == 1 && fence.get(0) == epoch;
    }

    @Override
    public long countUnmatched(List<TaskDefinition> tasks) {
        if (tasks.isEmpty()) {
            return 0;
        }
        List<TaskSql> sqls = tasks.stream().map(t -> statements.get(t.name())).toList();
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
                        + " = " + tasks.get(0).pendingStatus() + " AND CASE WHEN " + matched
                        + " THEN 1 ELSE 0 END = 0",
                Long.class);
        return count == null ? 0 : count;
    }

    /** The task's archive statements, inspecting its tables first when they were not yet. */
    ArchiveSql archiveSql(TaskDefinition task) {
        ArchiveSql sql = archives.get(task.name());
        if (sql == null) {
            SchemaReport report = inspect(task);
            sql = archives.get(task.name());
            if (sql == null) {
                throw new InvalidTaskException(
                        "scan.tasks." + task.name() + ": cannot archive: " + String.join("; ", report.problems()));
            }
        }
        return sql;
    }

    @Override
    public BacklogCounts countBacklog(TaskDefinition task) {
        List<BacklogCounts.Group> groups = new ArrayList<>();
        long[] deadWithoutShardKeyOutsideShards = new long[3];
        long[] withoutRetryCount = new long[1];
        Instant[] countedAt = new Instant[1];
        TaskSql sql = sql(task);
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
                    task.delayed() ? instant(rs.getTimestamp(7)) : null,
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
        return commits.write(() -> jdbc.update(sql(task).requeueDead()));
    }

    @Override
    public boolean pausedEverywhere(TaskDefinition task) {
        List<Integer> paused =
                jdbc.queryForList("SELECT paused FROM scan_task WHERE task = ?", Integer.class, task.name());
        return !paused.isEmpty() && paused.get(0) != 0;
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
    public boolean inTransaction(TransactionalWork work) throws Exception {
        try {
            Boolean committed = transactions.execute(status -> {
                try {
                    if (work.run()) {
                        return true;
                    }
                } catch (Exception e) {
                    throw new WorkFailed(e);
                }
                status.setRollbackOnly();
                return false;
            });
            return Boolean.TRUE.equals(committed);
        } catch (WorkFailed e) {
            throw (Exception) e.getCause();
        }
    }

    /** Carries the work's checked exception out of the transaction callback, which rolls back on it. */
    @Override
    public List<FailureGroup> failureGroups(TaskDefinition task, boolean dead, int page, int size, int examples) {
        if (page < 0 || size < 1 || examples < 0) {
            throw new IllegalArgumentException("page must be 0 or more, size 1 or more, examples 0 or more (were "
                    + page + ", " + size + ", " + examples + ")");
        }
        TableNames names = sql(task).names();
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
                                ? jdbc.query(sql.examples(true), (rs, n) -> id(rs, 1), examples)
                                : jdbc.query(sql.examples(false), (rs, n) -> id(rs, 1), group.error(), examples),
                        group.example()))
                .toList();
    }

    @Override
    public @Nullable Map<String, Object> readRow(TaskDefinition task, Object id) {
        TableNames names = sql(task).names();
        List<Map<String, Object>> rows = jdbc.query(
                FailureSql.row(task, names, dialect),
                ps -> dialect.bindId(ps, 1, id, names),
                new RowColumnsMapper(dialect, names));
        return rows.isEmpty() ? null : rows.get(0);
    }

    @Override
    public int requeue(TaskDefinition task, Requeue which) {
        TableNames names = sql(task).names();
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

    private static final class WorkFailed extends RuntimeException {
        WorkFailed(Exception cause) {
            super(cause);
        }
    }

    private void updateFailures(String statement, List<WriteBack.Failure> failures, int errorLength, TableNames names) {
        if (failures.isEmpty()) {
            return;
        }
        jdbc.batchUpdate(statement, failures, failures.size(), (ps, failure) -> {
            ps.setInt(1, failure.retries());
            ps.setString(2, cut(failure.error(), errorLength));
            dialect.bindId(ps, 3, failure.id(), names);
        });
    }

    /** An error text cut to what the last-error column holds ({@code 0}: unknown, kept whole). */
    private static String cut(String error, int length) {
        return length <= 0 || error.length() <= length ? error : error.substring(0, Math.max(0, length - 1)) + "…";
    }

    private long currentFence(TaskDefinition task, int shard) {
        Long epoch = jdbc.queryForObject(
                "SELECT epoch FROM scan_fence WHERE task = ? AND shard = ?", Long.class, task.name(), shard);
        return epoch == null ? -1 : epoch;
    }

    private TaskSql sql(TaskDefinition task) {
        TaskSql sql = statements.get(task.name());
        if (sql != null && (!sql.reads().equals(task.rowColumns()) || sql.stale())) {
            // inspected with another handler's columns (the same names, another fetch), or its due
            // bound holds the JVM's offset from before a daylight saving switch
            sql = TaskSql.of(task, sql.names(), sql.tableColumns(), dialect);
            statements.put(task.name(), sql);
        }
        if (sql == null) {
            SchemaReport report = inspect(task);
            sql = statements.get(task.name());
            if (sql == null) {
                throw new InvalidTaskException("scan.tasks." + task.name() + ": table " + task.table()
                        + (report.tableExists() ? " lacks columns " + report.missingColumns() : " does not exist"));
            }
        }
        return sql;
    }

    /**
     * Reads a page: the column names once, then one array of values per row. Pages of one task with
     * the same columns share one layout, so a handler resolves its columns' positions once.
     */
    private List<Row> rows(ResultSet rs, String task, TableNames names, int limit) throws SQLException {
        ResultSetMetaData meta = rs.getMetaData();
        int count = meta.getColumnCount();
        List<String> labels = new ArrayList<>(count);
        for (int i = 1; i <= count; i++) {
            labels.add(meta.getColumnLabel(i).toLowerCase(Locale.ROOT));
        }
        Row.Layout layout = layouts.get(task);
        if (layout == null || !layout.names().equals(labels)) {
            layout = new Row.Layout(labels);
            layouts.put(task, layout);
        }
        ColumnValues.Kind[] kinds = ColumnValues.kinds(meta);
        int updated = layout.position(names.updatedAt().toLowerCase(Locale.ROOT));
        if (updated >= 0 && kinds[updated] == ColumnValues.Kind.LOCAL_TIMESTAMP) {
            kinds[updated] = ColumnValues.Kind.UTC_TIMESTAMP;
        }
        int id = column(layout, names.id());
        int shardKey = column(layout, names.shardKey());
        int retries = column(layout, names.retries());
        int due = names.dueAt() == null ? -1 : column(layout, names.dueAt());
        List<Row> page = new ArrayList<>(Math.min(limit, 1024));
        while (rs.next()) {
            Object[] values = new Object[count];
            for (int i = 0; i < count; i++) {
                values[i] = ColumnValues.read(rs, i + 1, kinds[i]);
            }
            Object idValue = values[id - 1];
            String textId = TextKeys.isText(idValue) ? idValue.toString() : null;
            long rowId = textId != null
                    ? TextKeys.identity(textId)
                    : whole(idValue) ? ((Number) idValue).longValue() : rs.getLong(id);
            long key = shardKey(rs, shardKey, values[shardKey - 1]);
            int tries = whole(values[retries - 1]) ? ((Number) values[retries - 1]).intValue() : rs.getInt(retries);
            page.add(layout.row(rowId, key, tries, due < 0 ? null : instant(rs.getTimestamp(due)), textId, values));
        }
        return page;
    }

    /**
     * Whether a value read for the engine's own columns is the integer the driver's {@code getLong}
     * or {@code getInt} would decode again: then it is taken as read, else (NULL, a decimal, text)
     * the driver converts the column as before.
     */
    private static boolean whole(@Nullable Object value) {
        return value instanceof Long || value instanceof Integer || value instanceof Short;
    }

    /**
     * A row's shard key as the engine tells keys apart, from the value read at {@code index}: a whole
     * number as it is, text or a UUID by {@link TextKeys#identity}, anything else (a decimal, NULL) as
     * the driver's {@code getLong} converts it.
     */
    private static long shardKey(ResultSet rs, int index, @Nullable Object value) throws SQLException {
        if (whole(value)) {
            return ((Number) value).longValue();
        }
        return TextKeys.isText(value) ? TextKeys.identity(value) : rs.getLong(index);
    }

    /**
     * A row's id as {@link io.shardscan.core.Row#idValue()} holds it, read at {@code index}: the text of
     * a text or UUID id, else a {@code Long}.
     */
    private static Object id(ResultSet rs, int index) throws SQLException {
        Object value = rs.getObject(index);
        return TextKeys.isText(value) ? value.toString() : (Object) rs.getLong(index);
    }

    /** The number the engine tells an id apart by: a whole id itself, a text id's {@link TextKeys#identity}. */
    private static long number(Object id) {
        return id instanceof String text ? TextKeys.identity(text) : (Long) id;
    }

    /**
     * A due time as the keyset binds it back: read and bound as {@link Timestamp}, so both sides
     * convert the column's value in the same zone.
     */
    private static @Nullable Instant instant(@Nullable Timestamp value) {
        return value == null ? null : value.toInstant();
    }

    /** The 1-based result-set index of a task column. */
    private static int column(Row.Layout layout, String name) throws SQLException {
        int position = layout.position(name.toLowerCase(Locale.ROOT));
        if (position < 0) {
            throw new SQLException("the fetch returned no column " + name);
        }
        return position + 1;
    }
}
