package io.shardscan.jdbc;

import io.shardscan.core.RangeFailure;
import io.shardscan.core.RangeFailures;
import java.sql.PreparedStatement;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

/** {@link RangeFailures} on the table {@code scan_range_failure}. Thread-safe. */
public final class JdbcRangeFailures implements RangeFailures {

    private final JdbcTemplate jdbc;
    private final SqlDialect dialect;

    public JdbcRangeFailures(DataSource dataSource) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.dialect = SqlDialect.detect(dataSource);
    }

    @Override
    public long count(String task, long run) {
        return jdbc.queryForObject(
                "SELECT COUNT(*) FROM scan_range_failure WHERE task = ? AND run_id = ?", Long.class, task, run);
    }

    @Override
    public List<RangeFailure> recent(String task, long run, int limit) {
        return jdbc.query(
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
                        java.util.Objects.requireNonNull(dialect.readNow(rs, 4))));
    }

    @Override
    public boolean take(String task, long run, long id) {
        return jdbc.update("DELETE FROM scan_range_failure WHERE task = ? AND run_id = ? AND row_id = ?", task, run, id)
                == 1;
    }

    @Override
    public void record(String task, long run, RangeFailure failure) {
        Rerun.onDeadlockOrDuplicateKey(() -> upsert(jdbc, dialect, task, run, failure));
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
