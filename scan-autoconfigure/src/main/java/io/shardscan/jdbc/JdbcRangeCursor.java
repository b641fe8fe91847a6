package io.shardscan.jdbc;

import io.shardscan.core.spi.RangeCursor;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A {@link RangeCursor} on the table {@code scan_range_cursor}: a claim reads the cursor and moves it
 * on with an UPDATE conditional on the value read, so of two nodes that read one value only one
 * moves it; the other reads again. Every statement is bounded by the statement timeout given at
 * construction (a {@link io.shardscan.core.spi.StatementCancelledException} past it). Thread-safe.
 */
public final class JdbcRangeCursor implements RangeCursor {

    private static final String TABLE = "scan_range_cursor";

    private final BoundedJdbc bounded;
    private final JdbcTemplate jdbc;
    private final SqlDialect dialect;

    /**
     * @param statementTimeout how long a statement may run before the driver cancels it: the engine's
     *     {@link io.shardscan.core.EngineSettings#statementTimeout()}
     */
    public JdbcRangeCursor(DataSource dataSource, Duration statementTimeout) {
        this(dataSource, statementTimeout, SqlDialect.detect(dataSource));
    }

    /** The same on a database of {@code dialect}. */
    public JdbcRangeCursor(DataSource dataSource, Duration statementTimeout, SqlDialect dialect) {
        this.bounded = new BoundedJdbc(dataSource, statementTimeout, dialect);
        this.jdbc = bounded.jdbc();
        this.dialect = bounded.dialect();
    }

    @Override
    public long claim(String task, long run, long size) {
        return bounded.on(TABLE, () -> claimNext(task, run, size));
    }

    private long claimNext(String task, long run, long size) {
        while (true) {
            long next = read(task, run);
            if (next < 0) {
                try {
                    jdbc.update(
                            dialect.insertUnlessPresent("scan_range_cursor", "task, run_id, next_offset", "?, ?, 0"),
                            task,
                            run);
                } catch (DuplicateKeyException e) {
                    // another node started the cursor first: read its value
                }
                continue;
            }
            if (jdbc.update(
                            "UPDATE scan_range_cursor SET next_offset = ? WHERE task = ? AND run_id = ?"
                                    + " AND next_offset = ?",
                            next + size,
                            task,
                            run,
                            next)
                    == 1) {
                return next;
            }
        }
    }

    @Override
    public long peek(String task, long run) {
        return bounded.on(TABLE, () -> Math.max(0, read(task, run)));
    }

    @Override
    public void retire(String task, long run) {
        bounded.run(TABLE, () -> jdbc.update("DELETE FROM scan_range_cursor WHERE task = ? AND run_id < ?", task, run));
    }

    @Override
    public String kind() {
        return "jdbc";
    }

    /** The cursor's value, {@code -1} when the run has none yet. */
    private long read(String task, long run) {
        List<Long> next = jdbc.queryForList(
                "SELECT next_offset FROM scan_range_cursor WHERE task = ? AND run_id = ?", Long.class, task, run);
        return next.isEmpty() ? -1 : next.get(0);
    }
}
