package io.shardscan.jdbc;

import io.shardscan.core.spi.FetchRequest;
import io.shardscan.core.spi.SchemaReport;
import io.shardscan.core.spi.TaskAdmin;
import io.shardscan.core.spi.TaskControl;
import io.shardscan.core.spi.TaskRuns;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.spi.WriteBack;
import io.shardscan.core.task.Archive;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.RowKey;
import io.shardscan.core.task.TaskDefinition;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A {@link TaskStore} over JDBC for PostgreSQL, MySQL/MariaDB and H2. The write-back runs in one
 * transaction that first locks the shard's fence row, so a newer owner's fence and a stale
 * owner's write-back are serialized and the stale one changes nothing. Thread-safe.
 */
public final class JdbcTaskStore implements TaskStore {

    /** A shard's fence: epoch 1 for its first owner, else the next epoch; with its owner's shard count. */
    private static final RowUpsert FENCE = new RowUpsert(
            "scan_fence",
            List.of("task", "shard"),
            "task, shard, epoch, owner, shards",
            "?, ?, 1, ?, ?",
            "epoch = scan_fence.epoch + 1, owner = ?, shards = ?");

    /**
     * Shard 0's fence row, kept as it is, or made with epoch 0 (no owner yet): the lock every fence of
     * a task of one table takes first, so that those of two shard counts see each other's.
     */
    private static final RowUpsert FENCES_LOCK = new RowUpsert(
            "scan_fence", List.of("task", "shard"), "task, shard, epoch", "?, 0, 0", "epoch = scan_fence.epoch");

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final Commits commits;
    private final SqlDialect dialect;
    private final JdbcTaskStatements statements;
    private final RowReader reader;
    private final JdbcTaskRuns runs;
    private final JdbcTaskAdmin admin;
    private final JdbcTaskControl control;
    private final JdbcFetch fetches;

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
        this.statements = new JdbcTaskStatements(dataSource, dialect);
        this.reader = new RowReader();
        this.runs = new JdbcTaskRuns(jdbc, transactions);
        this.admin = new JdbcTaskAdmin(jdbc, statements, commits);
        this.control = new JdbcTaskControl(jdbc, statements, commits);
        this.fetches = new JdbcFetch(jdbc, statements, reader);
    }

    /** {@code unbounded}'s view whose statements run through {@code jdbc}; it shares the statements inspected. */
    private JdbcTaskStore(JdbcTaskStore unbounded, JdbcTemplate jdbc) {
        this.jdbc = jdbc;
        this.transactions = unbounded.transactions;
        this.commits = unbounded.commits;
        this.dialect = unbounded.dialect;
        this.statements = unbounded.statements;
        this.reader = unbounded.reader;
        this.runs = new JdbcTaskRuns(jdbc, transactions);
        this.admin = new JdbcTaskAdmin(jdbc, statements, commits);
        this.control = new JdbcTaskControl(jdbc, statements, commits);
        this.fetches = new JdbcFetch(jdbc, statements, reader);
    }

    /**
     * A view whose every statement is cancelled once it ran for {@code timeout} ({@link
     * StatementDeadlines}: PostgreSQL's, MariaDB's and H2's drivers all cancel a statement that waits on
     * a lock). Its transactions are this store's: the application's statements in a transactional
     * handler join them without a timeout of their own, only the view's write-back carries one.
     */
    @Override
    public TaskStore boundedBy(Duration timeout) {
        return new JdbcTaskStore(
                this, StatementDeadlines.template(Objects.requireNonNull(jdbc.getDataSource()), timeout));
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
    public TaskAdmin admin() {
        return admin;
    }

    @Override
    public TaskControl control() {
        return control;
    }

    @Override
    public List<Row> fetch(TaskDefinition task, FetchRequest request) {
        return fetches.fetch(task, request);
    }

    @Override
    public List<Integer> dueRequests(TaskDefinition task, List<FetchRequest> requests) {
        return fetches.dueRequests(java.util.Collections.nCopies(requests.size(), task), requests);
    }

    /** One statement for the requests of every table, each request a branch in its own table. */
    @Override
    public List<Integer> dueRequests(List<TaskDefinition> tasks, List<FetchRequest> requests) {
        return fetches.dueRequests(tasks, requests);
    }

    @Override
    public SchemaReport inspect(TaskDefinition task) {
        return statements.inspect(task);
    }

    /** The task's archive statements, inspecting its tables first when they were not yet. */
    ArchiveSql archiveSql(TaskDefinition task) {
        return statements.archiveSql(task);
    }

    @Override
    public List<RowKey> failedRows(TaskDefinition task, int shard) {
        boolean due = task.delayed();
        return jdbc.query(
                statements.sql(task).failedRows(),
                (rs, n) -> {
                    Object id = RowReader.id(rs, 2);
                    return new RowKey(
                            RowReader.shardKey(rs, 1, rs.getObject(1)),
                            RowReader.number(id),
                            due ? RowReader.instant(rs.getTimestamp(3)) : null,
                            id instanceof String text ? text : null);
                },
                task.localShard(shard));
    }

    /**
     * Raises the fence, or inserts epoch 1 for the shard's first owner (one {@link RowUpsert}: on
     * MySQL and MariaDB one statement, so that two first fences at once do not deadlock), with the
     * shard count of the owner's node, and reads it back in the same transaction, which holds the
     * row's lock until it commits, so two owners can never be issued one epoch.
     *
     * <p>A task of one table may change its shard count while it runs (see {@code ShardCountRule}):
     * shard {@code s} of {@code K} shards holds part of the rows of its parent {@code s mod d} of every
     * count {@code d} dividing {@code K}, and is the parent of {@code s + K}, {@code s + 2K}, ... of
     * larger counts. So its fence is raised after shard 0's fence row's lock (every fence of the task
     * sees the one before), not at all while a parent's fence is a smaller count's (its owner may still
     * run these rows: 0 is returned), and raises its children's fences too, which ends their owners'
     * write-backs. A sharded task's logical shards do not split: its fence is the shard's alone.
     */
    @Override
    public long fence(TaskDefinition task, int shard, String owner) {
        // a rerun after another node's first fence of the same moment raises that one
        return Rerun.onDeadlockOrDuplicateKey(() -> raiseFence(task, shard, owner));
    }

    private long raiseFence(TaskDefinition task, int shard, String owner) {
        int shards = task.shards();
        boolean splits = task.splitsShards();
        Long epoch = transactions.execute(status -> {
            if (splits) {
                FENCES_LOCK.write(
                        jdbc, dialect, new Object[] {task.name(), 0}, new Object[] {task.name()}, new Object[0]);
                if (parentFencedByFewerShards(task, shard)) {
                    return 0L;
                }
            }
            FENCE.write(
                    jdbc,
                    dialect,
                    new Object[] {task.name(), shard},
                    new Object[] {task.name(), shard, owner, shards},
                    new Object[] {owner, shards});
            if (splits) {
                jdbc.update(
                        "UPDATE scan_fence SET epoch = epoch + 1 WHERE task = ? AND shard >= ? AND MOD(shard, ?) = ?",
                        task.name(),
                        shards,
                        shards,
                        shard);
            }
            return currentFence(task, shard);
        });
        if (epoch == null || epoch < 0) {
            throw new IllegalStateException("the fence of shard " + shard + " of task " + task.name() + " is gone");
        }
        return epoch;
    }

    /** Whether a parent of the shard ({@link TaskDefinition#parentShards}) was fenced by a count that covers it. */
    private boolean parentFencedByFewerShards(TaskDefinition task, int shard) {
        List<Integer> parents = task.parentShards(shard);
        if (parents.isEmpty()) {
            return false;
        }
        String in = parents.stream().map(String::valueOf).collect(Collectors.joining(", "));
        return jdbc.query(
                        "SELECT shard, shards FROM scan_fence WHERE task = ? AND shard IN (" + in + ")"
                                + dialect.shareLock(),
                        (rs, n) -> {
                            int parentShards = rs.getInt(2);
                            return !rs.wasNull() && task.coveredBy(shard, rs.getInt(1), parentShards);
                        },
                        task.name())
                .contains(true);
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
        TaskSql sql = statements.sql(task);
        // batch.at() is the node's clock: the statements stamp the rows with the database's
        if (dialect.fencesInOneStatement() && batch.doneOnly()) {
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
        TableNames names = statements.sql(task).names();
        Integer moved = Rerun.onDeadlock(() -> transactions.execute(status -> {
            if (!holdsFence(task, shard, epoch)) {
                return -1;
            }
            List<Object> ids = jdbc.query(sql.select(), (rs, n) -> RowReader.id(rs, 1), shard, archive.batch());
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

    /** The task's archive statements, inspecting its tables first when they were not yet. */
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
}
