package io.shardscan.jdbc;

import io.shardscan.core.spi.Firing;
import io.shardscan.core.spi.RunCounts;
import io.shardscan.core.spi.TaskRun;
import io.shardscan.core.spi.TaskRuns;
import io.shardscan.core.task.RunRange;
import io.shardscan.core.task.TaskDefinition;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@link TaskRuns} in the {@code run_*} columns of {@code scan_task} (one row per task, shared with
 * the task-wide pause), with the counts of each run's write-backs kept per shard in the
 * {@code run_*} columns of {@code scan_fence}, which {@link JdbcTaskStore#writeBack} adds to in the
 * write-back's own transaction. A range task's run also keeps its {@link RunRange} there
 * ({@code run_low_id}, {@code run_high_id}, {@code run_range_size}, {@code run_cursor}), and a scheduled
 * task its {@link Firing} record ({@code run_fired_at} in UTC, {@code run_fired_by}, {@code run_firing}),
 * which the statement that starts a run at a firing moves with it. Thread-safe.
 */
public final class JdbcTaskRuns implements TaskRuns {

    private static final String COLUMNS = "run_id, run_state, run_started_at, run_started_by, run_ended_at,"
            + " run_ended_by, run_processed, run_failed, run_dead, run_low_id, run_high_id, run_range_size, run_cursor";
    private static final String NEW_RUN = "run_state = 'RUNNING', run_started_at = ?, run_started_by = ?,"
            + " run_ended_at = NULL, run_ended_by = NULL, run_processed = 0, run_failed = 0, run_dead = 0";
    private static final String NEW_RANGE = ", run_low_id = ?, run_high_id = ?, run_range_size = ?, run_cursor = ?";
    private static final String NO_RANGE =
            ", run_low_id = NULL, run_high_id = NULL, run_range_size = NULL, run_cursor = NULL";

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final Commits commits;

    JdbcTaskRuns(JdbcTemplate jdbc, TransactionTemplate transactions) {
        this.jdbc = jdbc;
        this.transactions = transactions;
        this.commits = new Commits(java.util.Objects.requireNonNull(jdbc.getDataSource()), transactions);
    }

    /** The runs in the tables of {@code dataSource}. */
    public JdbcTaskRuns(DataSource dataSource) {
        this(new JdbcTemplate(dataSource), new TransactionTemplate(new DataSourceTransactionManager(dataSource)));
    }

    /**
     * The runs in the tables of {@code dataSource}, each statement cancelled by the driver past
     * {@code statementTimeout} (a range task's runs: {@link io.shardscan.core.EngineSettings#statementTimeout()}).
     */
    public JdbcTaskRuns(DataSource dataSource, java.time.Duration statementTimeout) {
        this(dataSource, statementTimeout, SqlDialect.detect(dataSource));
    }

    /** The same on a database of {@code dialect}, which tells the driver's timeouts apart. */
    public JdbcTaskRuns(DataSource dataSource, java.time.Duration statementTimeout, SqlDialect dialect) {
        this(new BoundedJdbc(dataSource, statementTimeout, dialect));
    }

    private JdbcTaskRuns(BoundedJdbc bounded) {
        this(bounded.jdbc(), bounded.transactions());
    }

    @Override
    public @Nullable TaskRun current(TaskDefinition task) {
        List<TaskRun> runs = jdbc.query(
                "SELECT " + COLUMNS + " FROM scan_task WHERE task = ? AND run_id IS NOT NULL",
                (rs, n) -> run(rs),
                task.name());
        return runs.isEmpty() ? null : runs.get(0);
    }

    @Override
    public TaskRun startFirst(TaskDefinition task, String by, Instant at, @Nullable RunRange range) {
        // nodes inserting the first row at once deadlock on MySQL and MariaDB: the victim runs it again
        return Rerun.onDeadlock(() -> startFirstOnce(task, by, at, range));
    }

    private TaskRun startFirstOnce(TaskDefinition task, String by, Instant at, @Nullable RunRange range) {
        Object[] values = values(task, 1, by, at, range);
        String first = "UPDATE scan_task SET run_id = ?, " + NEW_RUN + (range == null ? NO_RANGE : NEW_RANGE)
                + " WHERE task = ? AND run_id IS NULL";
        if (committed(() -> jdbc.update(first, values)) == 0 && current(task) == null) {
            try {
                committed(() -> {
                    insertFirst(task, by, at, range);
                    return 1;
                });
            } catch (DuplicateKeyException e) {
                // another node inserted the row first, with its run or with a pause only
                committed(() -> jdbc.update(first, values));
            }
        }
        return present(task, current(task));
    }

    @Override
    public TaskRun start(TaskDefinition task, long previous, String by, Instant at, @Nullable RunRange range) {
        // a rerun after another node's first insert finds its run current
        TaskRun started = Rerun.onDeadlockOrDuplicateKey(() -> transactions.execute(status -> {
            int updated = jdbc.update(
                    "UPDATE scan_task SET run_id = ?, " + NEW_RUN + (range == null ? NO_RANGE : NEW_RANGE)
                            + " WHERE task = ? AND COALESCE(run_id, 0) = ?",
                    append(values(task, previous + 1, by, at, range), previous));
            if (updated == 0 && previous == 0 && current(task) == null) {
                insertFirst(task, by, at, range);
            }
            return current(task);
        }));
        return present(task, started);
    }

    /** One statement that commits also where the pool's connections do not autocommit ({@link Commits}). */
    private int committed(java.util.function.IntSupplier statement) {
        return commits.write(statement::getAsInt);
    }

    private static Object[] values(TaskDefinition task, long id, String by, Instant at, @Nullable RunRange range) {
        return range == null
                ? new Object[] {id, Timestamp.from(at), by, task.name()}
                : new Object[] {
                    id,
                    Timestamp.from(at),
                    by,
                    range.lowId(),
                    range.highId(),
                    range.rangeSize(),
                    range.cursor(),
                    task.name()
                };
    }

    private static Object[] append(Object[] values, Object last) {
        Object[] all = java.util.Arrays.copyOf(values, values.length + 1);
        all[values.length] = last;
        return all;
    }

    private static TaskRun present(TaskDefinition task, @Nullable TaskRun current) {
        if (current == null) {
            throw new IllegalStateException("the run of task " + task.name() + " is gone from scan_task");
        }
        return current;
    }

    private void insertFirst(TaskDefinition task, String by, Instant at, @Nullable RunRange range) {
        if (range == null) {
            jdbc.update(
                    "INSERT INTO scan_task (task, paused, run_id, run_state, run_started_at, run_started_by,"
                            + " run_processed, run_failed, run_dead) VALUES (?, 0, 1, 'RUNNING', ?, ?, 0, 0, 0)",
                    task.name(),
                    Timestamp.from(at),
                    by);
            return;
        }
        jdbc.update(
                "INSERT INTO scan_task (task, paused, run_id, run_state, run_started_at, run_started_by, run_processed,"
                        + " run_failed, run_dead, run_low_id, run_high_id, run_range_size, run_cursor)"
                        + " VALUES (?, 0, 1, 'RUNNING', ?, ?, 0, 0, 0, ?, ?, ?, ?)",
                task.name(),
                Timestamp.from(at),
                by,
                range.lowId(),
                range.highId(),
                range.rangeSize(),
                range.cursor());
    }

    /**
     * Up to three statements, each one step no other node's can split: run 0 given to a row without a
     * run, the record made on a row without one, else the row inserted with both; a node whose insert
     * met another's runs the two updates again. A crash between them leaves a row the next call completes.
     */
    @Override
    public Firing firstSeen(TaskDefinition task, String by, Instant at, @Nullable RunRange range) {
        return Rerun.onDeadlock(() -> firstSeenOnce(task, by, at, range));
    }

    private Firing firstSeenOnce(TaskDefinition task, String by, Instant at, @Nullable RunRange range) {
        String runZero = "UPDATE scan_task SET run_id = 0, run_state = 'DONE', run_started_at = ?, run_started_by = ?,"
                + " run_ended_at = ?, run_ended_by = ?, run_processed = 0, run_failed = 0, run_dead = 0"
                + (range == null ? NO_RANGE : NEW_RANGE) + " WHERE task = ? AND run_id IS NULL";
        Object[] runZeroValues = runZeroValues(task, by, at, range);
        String seen = "UPDATE scan_task SET run_fired_at = ?, run_fired_by = ?, run_firing = 'SEEN'"
                + " WHERE task = ? AND run_fired_at IS NULL";
        Object[] seenValues = {utc(at), by, task.name()};
        int gaveRun = committed(() -> jdbc.update(runZero, runZeroValues));
        int recorded = committed(() -> jdbc.update(seen, seenValues));
        if (gaveRun == 0 && recorded == 0 && firing(task) == null) {
            try {
                committed(() -> {
                    insertSeen(task, by, at, range);
                    return 1;
                });
            } catch (DuplicateKeyException e) {
                // another node inserted the row first, with its record or with a pause only
                committed(() -> jdbc.update(runZero, runZeroValues));
                committed(() -> jdbc.update(seen, seenValues));
            }
        }
        Firing firing = firing(task);
        if (firing == null) {
            throw new IllegalStateException("the firing record of task " + task.name() + " is gone from scan_task");
        }
        return firing;
    }

    /**
     * One conditional statement starts the next run (the current one done, the record older than the
     * firing); else one records the firing skipped (the current one running, the record older); then the
     * record is read. Both leave the record alone when another node moved it past the firing first.
     */
    @Override
    public Firing fire(TaskDefinition task, Instant firing, String by, Instant at, @Nullable RunRange range) {
        List<Object> start = new java.util.ArrayList<>(List.of(Timestamp.from(at), by));
        if (range != null) {
            start.addAll(List.of(range.lowId(), range.highId(), range.rangeSize(), range.cursor()));
        }
        start.addAll(List.of(utc(at), by, task.name(), utc(firing)));
        int started = Rerun.onDeadlock(() -> committed(() -> jdbc.update(
                "UPDATE scan_task SET run_id = run_id + 1, " + NEW_RUN + (range == null ? NO_RANGE : NEW_RANGE)
                        + ", run_fired_at = ?, run_fired_by = ?, run_firing = 'STARTED'"
                        + " WHERE task = ? AND run_state = 'DONE' AND run_fired_at < ?",
                start.toArray())));
        if (started == 0) {
            Rerun.onDeadlock(() -> committed(() -> jdbc.update(
                    "UPDATE scan_task SET run_fired_at = ?, run_fired_by = ?, run_firing = 'SKIPPED'"
                            + " WHERE task = ? AND run_state = 'RUNNING' AND run_fired_at < ?",
                    utc(at),
                    by,
                    task.name(),
                    utc(firing))));
        }
        Firing record = firing(task);
        if (record == null) {
            throw new IllegalStateException("task " + task.name() + " has no firing record in scan_task: its"
                    + " schedule's first sight (TaskRuns.firstSeen) makes it");
        }
        return record;
    }

    /** The task's firing record; {@code null} when it has none. */
    private @Nullable Firing firing(TaskDefinition task) {
        List<Firing> records = jdbc.query(
                "SELECT run_fired_at, run_fired_by, run_firing FROM scan_task WHERE task = ? AND run_fired_at IS NOT NULL",
                (rs, n) -> new Firing(
                        rs.getObject(1, LocalDateTime.class).toInstant(ZoneOffset.UTC),
                        String.valueOf(rs.getString(2)),
                        Firing.Kind.valueOf(rs.getString(3))),
                task.name());
        return records.isEmpty() ? null : records.get(0);
    }

    /**
     * A firing record's time as a zone-less UTC value: nodes compare it with firings they computed, so it
     * must not depend on a node's JVM zone (as a {@link Timestamp} would on a zone-less column).
     */
    private static LocalDateTime utc(Instant at) {
        return LocalDateTime.ofInstant(at, ZoneOffset.UTC);
    }

    private static Object[] runZeroValues(TaskDefinition task, String by, Instant at, @Nullable RunRange range) {
        List<Object> values = new java.util.ArrayList<>(List.of(Timestamp.from(at), by, Timestamp.from(at), by));
        if (range != null) {
            values.addAll(List.of(range.lowId(), range.highId(), range.rangeSize(), range.cursor()));
        }
        values.add(task.name());
        return values.toArray();
    }

    private void insertSeen(TaskDefinition task, String by, Instant at, @Nullable RunRange range) {
        jdbc.update(
                "INSERT INTO scan_task (task, paused, run_id, run_state, run_started_at, run_started_by, run_ended_at,"
                        + " run_ended_by, run_processed, run_failed, run_dead, run_low_id, run_high_id, run_range_size,"
                        + " run_cursor, run_fired_at, run_fired_by, run_firing)"
                        + " VALUES (?, 0, 0, 'DONE', ?, ?, ?, ?, 0, 0, 0, ?, ?, ?, ?, ?, ?, 'SEEN')",
                task.name(),
                Timestamp.from(at),
                by,
                Timestamp.from(at),
                by,
                range == null ? null : range.lowId(),
                range == null ? null : range.highId(),
                range == null ? null : range.rangeSize(),
                range == null ? null : range.cursor(),
                utc(at),
                by);
    }

    @Override
    public boolean finish(TaskDefinition task, long run, RunCounts counts, String by, Instant at) {
        return committed(() -> jdbc.update(
                        "UPDATE scan_task SET run_state = 'DONE', run_ended_at = ?, run_ended_by = ?, run_processed = ?,"
                                + " run_failed = ?, run_dead = ? WHERE task = ? AND run_id = ? AND run_state = 'RUNNING'",
                        Timestamp.from(at),
                        by,
                        counts.processed(),
                        counts.failed(),
                        counts.dead(),
                        task.name(),
                        run))
                == 1;
    }

    @Override
    public RunCounts counted(TaskDefinition task, long run) {
        RunCounts counts = jdbc.queryForObject(
                "SELECT COALESCE(SUM(run_processed), 0), COALESCE(SUM(run_failed), 0), COALESCE(SUM(run_dead), 0)"
                        + " FROM scan_fence WHERE task = ? AND run_id = ?",
                (rs, n) -> new RunCounts(rs.getLong(1), rs.getLong(2), rs.getLong(3)),
                task.name(),
                run);
        return counts == null ? RunCounts.NONE : counts;
    }

    /**
     * Adds a write-back's counts to its shard's counts of {@code run} (a shard's counts start over when
     * a new run writes back to it), only while the fence holds {@code epoch}: the write-back's fence
     * check, taking the fence row's lock until the write-back commits.
     *
     * @return whether the fence holds the epoch
     */
    boolean countUnderFence(TaskDefinition task, int shard, long epoch, long run, RunCounts counts) {
        return jdbc.update(
                        "UPDATE scan_fence SET"
                                + " run_processed = CASE WHEN run_id = ? THEN run_processed + ? ELSE ? END,"
                                + " run_failed = CASE WHEN run_id = ? THEN run_failed + ? ELSE ? END,"
                                + " run_dead = CASE WHEN run_id = ? THEN run_dead + ? ELSE ? END,"
                                // last: MySQL assigns left to right, and the CASEs must see the old run id
                                + " run_id = ? WHERE task = ? AND shard = ? AND epoch = ?",
                        run,
                        counts.processed(),
                        counts.processed(),
                        run,
                        counts.failed(),
                        counts.failed(),
                        run,
                        counts.dead(),
                        counts.dead(),
                        run,
                        task.name(),
                        shard,
                        epoch)
                == 1;
    }

    private static TaskRun run(ResultSet rs) throws SQLException {
        long size = rs.getLong(12);
        // no range size: a run of a status-column task
        RunRange range = rs.wasNull()
                ? null
                : new RunRange(rs.getLong(10), rs.getLong(11), size, String.valueOf(rs.getString(13)));
        return new TaskRun(
                rs.getLong(1),
                "DONE".equals(rs.getString(2)) ? TaskRun.State.DONE : TaskRun.State.RUNNING,
                instant(rs.getTimestamp(3)),
                String.valueOf(rs.getString(4)),
                rs.getTimestamp(5) == null ? null : instant(rs.getTimestamp(5)),
                rs.getString(6),
                new RunCounts(rs.getLong(7), rs.getLong(8), rs.getLong(9)),
                range);
    }

    private static Instant instant(@Nullable Timestamp value) {
        return value == null ? Instant.EPOCH : value.toInstant();
    }
}
