package io.shardscan.jdbc;

import io.shardscan.core.BacklogCounts;
import io.shardscan.core.FetchRequest;
import io.shardscan.core.InvalidTaskException;
import io.shardscan.core.Row;
import io.shardscan.core.SchemaReport;
import io.shardscan.core.TaskDefinition;
import io.shardscan.core.TaskStore;
import io.shardscan.core.WriteBack;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.ResultSetExtractor;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A {@link TaskStore} over JDBC for PostgreSQL, MySQL/MariaDB and H2. The write-back runs in one
 * transaction that first locks the shard's fence row, so a newer owner's fence and a stale
 * owner's write-back are serialized and the stale one changes nothing. Thread-safe.
 */
public final class JdbcTaskStore implements TaskStore {

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final SqlDialect dialect;
    private final TableInspector inspector;
    private final Map<String, TaskSql> statements = new ConcurrentHashMap<>();

    public JdbcTaskStore(DataSource dataSource) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        this.dialect = SqlDialect.detect(dataSource);
        this.inspector = new TableInspector(dataSource, dialect);
    }

    @Override
    public SchemaReport inspect(TaskDefinition task) {
        TableInspector.Inspection inspection = inspector.inspect(task);
        if (inspection.names() != null) {
            statements.put(task.name(), TaskSql.of(task, inspection.names(), dialect));
        }
        return inspection.report();
    }

    @Override
    public List<Row> fetch(TaskDefinition task, FetchRequest request) {
        TaskSql sql = sql(task);
        List<Row> page = jdbc.query(
                sql.fetch().sql(request.minRetries(), request.maxRetries()),
                ps -> {
                    int index = 1;
                    ps.setInt(index++, request.shard());
                    if (TaskSql.Fetch.takesDueBound(request.maxRetries())) {
                        ps.setTimestamp(index++, Timestamp.from(request.dueBefore()));
                    }
                    ps.setLong(index++, request.afterId());
                    ps.setInt(index, request.limit());
                },
                (ResultSetExtractor<List<Row>>) rs -> rows(rs, sql.names(), request.limit()));
        return page == null ? List.of() : page;
    }

    @Override
    public boolean fence(TaskDefinition task, int shard, long epoch) {
        try {
            jdbc.update("INSERT INTO scan_fence (task, shard, epoch) VALUES (?, ?, ?)", task.name(), shard, epoch);
            return true;
        } catch (DuplicateKeyException e) {
            jdbc.update(
                    "UPDATE scan_fence SET epoch = ? WHERE task = ? AND shard = ? AND epoch < ?",
                    epoch,
                    task.name(),
                    shard,
                    epoch);
            return currentFence(task, shard) == epoch;
        }
    }

    @Override
    public boolean writeBack(TaskDefinition task, WriteBack batch) {
        TaskSql sql = sql(task);
        Timestamp at = Timestamp.from(batch.at());
        if (dialect.fencesInOneStatement()
                && batch.failed().isEmpty()
                && batch.dead().isEmpty()) {
            return markDoneFenced(task, sql, batch, at);
        }
        Boolean written = transactions.execute(status -> {
            List<Long> fence = jdbc.queryForList(
                    "SELECT epoch FROM scan_fence WHERE task = ? AND shard = ?" + dialect.shareLock(),
                    Long.class,
                    task.name(),
                    batch.shard());
            if (fence.size() != 1 || fence.get(0) != batch.epoch()) {
                return false;
            }
            if (!batch.done().isEmpty()) {
                jdbc.update(sql.markDone() + dialect.anyOf(batch.done().size()), ps -> {
                    ps.setTimestamp(1, at);
                    dialect.bindIds(ps, 2, batch.done());
                });
            }
            updateFailures(sql.markFailed(), batch.failed(), at);
            updateFailures(sql.markDead(), batch.dead(), at);
            return true;
        });
        return Boolean.TRUE.equals(written);
    }

    /**
     * The common round, every row done: one statement writes them only while the fence holds the
     * epoch. When it changes fewer rows than asked, the fence tells a moved epoch from rows that
     * were no longer pending.
     */
    private boolean markDoneFenced(TaskDefinition task, TaskSql sql, WriteBack batch, Timestamp at) {
        int updated =
                jdbc.update(sql.markDoneFenced() + dialect.anyOf(batch.done().size()), ps -> {
                    ps.setTimestamp(1, at);
                    ps.setString(2, task.name());
                    ps.setInt(3, batch.shard());
                    ps.setLong(4, batch.epoch());
                    dialect.bindIds(ps, 5, batch.done());
                });
        return updated == batch.done().size() || currentFence(task, batch.shard()) == batch.epoch();
    }

    @Override
    public BacklogCounts countBacklog(TaskDefinition task) {
        TaskSql sql = sql(task);
        List<BacklogCounts.Group> groups = jdbc.query(sql.countPending(), (rs, n) -> {
            Timestamp oldest = rs.getTimestamp(3);
            return new BacklogCounts.Group(rs.getInt(1), rs.getLong(2), oldest == null ? null : oldest.toInstant());
        });
        Long dead = jdbc.queryForObject(sql.countDead(), Long.class);
        return new BacklogCounts(groups, dead == null ? 0 : dead);
    }

    @Override
    public int requeueDead(TaskDefinition task, Instant at) {
        return jdbc.update(sql(task).requeueDead(), Timestamp.from(at));
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
    private static final class WorkFailed extends RuntimeException {
        WorkFailed(Exception cause) {
            super(cause);
        }
    }

    private void updateFailures(String statement, List<WriteBack.Failure> failures, Timestamp at) {
        if (failures.isEmpty()) {
            return;
        }
        jdbc.batchUpdate(statement, failures, failures.size(), (ps, failure) -> {
            ps.setInt(1, failure.retries());
            ps.setTimestamp(2, at);
            ps.setString(3, failure.error());
            ps.setLong(4, failure.id());
        });
    }

    private long currentFence(TaskDefinition task, int shard) {
        Long epoch = jdbc.queryForObject(
                "SELECT epoch FROM scan_fence WHERE task = ? AND shard = ?", Long.class, task.name(), shard);
        return epoch == null ? -1 : epoch;
    }

    private TaskSql sql(TaskDefinition task) {
        TaskSql sql = statements.get(task.name());
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

    /** Reads a page: the column names once, then one array of values per row. */
    private static List<Row> rows(ResultSet rs, TableNames names, int limit) throws SQLException {
        ResultSetMetaData meta = rs.getMetaData();
        int count = meta.getColumnCount();
        List<String> labels = new ArrayList<>(count);
        for (int i = 1; i <= count; i++) {
            labels.add(meta.getColumnLabel(i).toLowerCase(Locale.ROOT));
        }
        Row.Layout layout = new Row.Layout(labels);
        boolean[] timestamps = new boolean[count];
        for (int i = 0; i < count; i++) {
            timestamps[i] = meta.getColumnType(i + 1) == Types.TIMESTAMP;
        }
        int id = column(layout, names.id());
        int shardKey = column(layout, names.shardKey());
        int retries = column(layout, names.retries());
        List<Row> page = new ArrayList<>(Math.min(limit, 1024));
        while (rs.next()) {
            Object[] values = new Object[count];
            for (int i = 0; i < count; i++) {
                values[i] = timestamps[i]
                        ? deferredTimestamp(rs.getObject(i + 1, LocalDateTime.class))
                        : rs.getObject(i + 1);
            }
            page.add(layout.row(rs.getLong(id), rs.getLong(shardKey), rs.getInt(retries), values));
        }
        return page;
    }

    /**
     * A TIMESTAMP column read as the driver's cheap {@link LocalDateTime} and turned into the
     * {@link Timestamp} that {@code getObject} returns only when the handler reads it: the
     * {@code Calendar} arithmetic of {@code getTimestamp} was a third of a page fetch's CPU.
     */
    private static Row.@Nullable Deferred deferredTimestamp(@Nullable LocalDateTime value) {
        return value == null ? null : () -> Timestamp.valueOf(value);
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
