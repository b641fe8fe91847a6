package io.shardscan.jdbc;

import io.shardscan.core.spi.RangeFailure;
import io.shardscan.core.spi.RangeFailures;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@link RangeFailures} on the table {@code scan_range_failure}, every statement bounded by the
 * statement timeout given at construction (a {@link io.shardscan.core.spi.StatementCancelledException}
 * past it). Thread-safe.
 */
public final class JdbcRangeFailures implements RangeFailures {

    static final String TABLE = "scan_range_failure";

    private final BoundedJdbc bounded;
    private final JdbcTemplate jdbc;
    private final SqlDialect dialect;

    /**
     * @param statementTimeout how long a statement may run before the driver cancels it: the engine's
     *     {@link io.shardscan.core.EngineSettings#statementTimeout()}
     */
    public JdbcRangeFailures(DataSource dataSource, Duration statementTimeout) {
        this(dataSource, statementTimeout, SqlDialect.detect(dataSource));
    }

    /** The same on a database of {@code dialect}. */
    public JdbcRangeFailures(DataSource dataSource, Duration statementTimeout, SqlDialect dialect) {
        this.bounded = new BoundedJdbc(dataSource, statementTimeout, dialect);
        this.jdbc = bounded.jdbc();
        this.dialect = bounded.dialect();
    }

    @Override
    public long count(String task, long run) {
        return bounded.on(
                TABLE,
                () -> jdbc.queryForObject(
                        "SELECT COUNT(*) FROM scan_range_failure WHERE task = ? AND run_id = ?",
                        Long.class,
                        task,
                        run));
    }

    @Override
    public List<RangeFailure> recent(String task, long run, int limit) {
        return bounded.on(
                TABLE,
                () -> jdbc.query(
                        connection -> {
                            PreparedStatement statement = connection.prepareStatement(
                                    // read as the instant the database's clock wrote, whatever the session's zone
                                    "SELECT row_id, error, attempts, " + dialect.selectNow("failed_at")
                                            + " FROM scan_range_failure WHERE task = ?"
                                            + " AND run_id = ? ORDER BY failed_at DESC, row_id DESC");
                            statement.setString(1, task);
                            statement.setLong(2, run);
                            statement.setMaxRows(limit);
                            return statement;
                        },
                        (rs, n) -> new RangeFailure(
                                rs.getLong(1),
                                rs.getString(2),
                                rs.getInt(3),
                                java.util.Objects.requireNonNull(dialect.readNow(rs, 4)))));
    }

    @Override
    public boolean take(String task, long run, long id) {
        return bounded.on(
                TABLE,
                () -> jdbc.update(
                                "DELETE FROM scan_range_failure WHERE task = ? AND run_id = ? AND row_id = ?",
                                task,
                                run,
                                id)
                        == 1);
    }

    @Override
    public void record(String task, long run, RangeFailure failure) {
        bounded.run(TABLE, () -> Rerun.onDeadlockOrDuplicateKey(() -> upsert(jdbc, dialect, task, run, failure)));
    }

    /**
     * Replaces the failure of the row, with the error cut to what the column keeps, at the
     * database's time: one {@link RowUpsert}, not a DELETE, then an INSERT, whose gap locks
     * deadlocked two nodes committing new failures at once on MySQL and MariaDB.
     */
    static void upsert(JdbcTemplate jdbc, SqlDialect dialect, String task, long run, RangeFailure failure) {
        String error = failure.error().length() > JdbcRangeLedger.ERROR_LENGTH
                ? failure.error().substring(0, JdbcRangeLedger.ERROR_LENGTH)
                : failure.error();
        new RowUpsert(
                        "scan_range_failure",
                        List.of("task", "run_id", "row_id"),
                        "task, run_id, row_id, error, attempts, failed_at",
                        "?, ?, ?, ?, ?, " + dialect.now(),
                        "error = ?, attempts = ?, failed_at = " + dialect.now())
                .write(
                        jdbc,
                        dialect,
                        new Object[] {task, run, failure.id()},
                        new Object[] {task, run, failure.id(), error, failure.attempts()},
                        new Object[] {error, failure.attempts()});
    }
}
