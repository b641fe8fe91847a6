package io.shardscan.jdbc;

import io.shardscan.core.RangeRun;
import io.shardscan.core.RangeRuns;
import io.shardscan.core.RangeTask;
import java.sql.Timestamp;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@link RangeRuns} on the table {@code scan_range_run}: a run starts by inserting its row (the first
 * node's snapshot of the table's lowest and highest id wins, later ones read it) and ends by an
 * UPDATE conditional on its state. Thread-safe.
 */
public final class JdbcRangeRuns implements RangeRuns {

    private static final String RUNNING = "RUNNING";
    private static final String DONE = "DONE";

    private final JdbcTemplate jdbc;
    private final SqlDialect dialect;

    public JdbcRangeRuns(DataSource dataSource) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.dialect = SqlDialect.detect(dataSource);
    }

    @Override
    public RangeRun current(RangeTask task) {
        List<RangeRun> latest = latest(task.name());
        return latest.isEmpty() ? start(task, 0) : latest.get(0);
    }

    @Override
    public RangeRun start(RangeTask task, long previous) {
        long[] bounds = jdbc.query(
                "SELECT MIN(" + task.definition().idColumn() + "), MAX("
                        + task.definition().idColumn() + ") FROM "
                        + task.definition().table(),
                rs -> {
                    rs.next();
                    long low = rs.getLong(1);
                    return rs.wasNull() ? new long[] {1, 0} : new long[] {low, rs.getLong(2)};
                });
        try {
            jdbc.update(
                    dialect.insertUnlessPresent(
                            "scan_range_run",
                            "task, run_id, low_id, high_id, state, started_at",
                            "?, ?, ?, ?, '" + RUNNING + "', " + dialect.now()),
                    task.name(),
                    previous + 1,
                    bounds[0],
                    bounds[1]);
        } catch (DuplicateKeyException e) {
            // another node started this run first: its snapshot holds
        }
        return latest(task.name()).get(0);
    }

    @Override
    public boolean finish(String task, long run) {
        return jdbc.update(
                        "UPDATE scan_range_run SET state = '" + DONE + "', ended_at = " + dialect.now()
                                + " WHERE task = ? AND run_id = ? AND state = '" + RUNNING + "'",
                        task,
                        run)
                == 1;
    }

    private List<RangeRun> latest(String task) {
        return jdbc.query(
                "SELECT run_id, low_id, high_id, state, started_at, ended_at FROM scan_range_run WHERE task = ?"
                        + " ORDER BY run_id DESC",
                rs -> {
                    if (!rs.next()) {
                        return List.of();
                    }
                    Timestamp ended = rs.getTimestamp(6);
                    return List.of(new RangeRun(
                            rs.getLong(1),
                            rs.getLong(2),
                            rs.getLong(3),
                            DONE.equals(rs.getString(4)),
                            rs.getTimestamp(5).toInstant(),
                            ended == null ? null : ended.toInstant()));
                },
                task);
    }
}
