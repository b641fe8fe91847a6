package io.shardscan.jdbc;

import io.shardscan.core.spi.RangeCommit;
import io.shardscan.core.spi.RangeFailure;
import io.shardscan.core.spi.RangeLease;
import io.shardscan.core.spi.RangeLedger;
import io.shardscan.core.spi.RangeProgress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A {@link RangeLedger} on the table {@code scan_range} (and {@code scan_range_failure} for the
 * failures a commit records). Every write of an owner names its epoch; a takeover raises the epoch in
 * the same conditional UPDATE that changes the owner, so the database issues it. Every statement is
 * bounded by the statement timeout given at construction: one that waits on a lock past it is
 * cancelled (a commit's transaction rolls back whole) and fails as a
 * {@link io.shardscan.core.spi.StatementCancelledException} naming {@code scan_range}. Thread-safe.
 */
public final class JdbcRangeLedger implements RangeLedger {

    /** The longest error text {@code scan_range_failure.error} keeps. */
    static final int ERROR_LENGTH = 512;

    private static final String TABLE = "scan_range";

    private final BoundedJdbc bounded;
    private final JdbcTemplate jdbc;
    private final SqlDialect dialect;
    private final TransactionTemplate transactions;

    /**
     * @param statementTimeout how long a statement may run before the driver cancels it: the engine's
     *     {@link io.shardscan.core.EngineSettings#statementTimeout()}
     */
    public JdbcRangeLedger(DataSource dataSource, Duration statementTimeout) {
        this(dataSource, statementTimeout, SqlDialect.detect(dataSource));
    }

    /** The same on a database of {@code dialect}. */
    public JdbcRangeLedger(DataSource dataSource, Duration statementTimeout, SqlDialect dialect) {
        this.bounded = new BoundedJdbc(dataSource, statementTimeout, dialect);
        this.jdbc = bounded.jdbc();
        this.dialect = bounded.dialect();
        this.transactions = bounded.transactions();
    }

    @Override
    public Optional<RangeLease> open(String task, long run, long start, long end, String owner) {
        return bounded.on(TABLE, () -> insertRange(task, run, start, end, owner));
    }

    private Optional<RangeLease> insertRange(String task, long run, long start, long end, String owner) {
        try {
            int inserted = jdbc.update(
                    dialect.insertCountingNew(
                            "scan_range",
                            "task, run_id, range_start, range_end, position, owner, epoch, heartbeat_at, moved_at,"
                                    + " processed, failed, done",
                            "?, ?, ?, ?, ?, ?, 1, " + dialect.now() + ", " + dialect.now() + ", 0, 0, 0"),
                    task,
                    run,
                    start,
                    end,
                    start - 1,
                    owner);
            return inserted == 1 ? Optional.of(new RangeLease(start, end, start - 1, 1)) : Optional.empty();
        } catch (DuplicateKeyException e) {
            return Optional.empty();
        }
    }

    @Override
    public List<RangeLease> takeOver(
            String task, long run, String owner, Duration leaseTtl, Duration stallTimeout, int limit) {
        return bounded.on(TABLE, () -> takeOverDue(task, run, owner, leaseTtl, stallTimeout, limit));
    }

    private List<RangeLease> takeOverDue(
            String task, long run, String owner, Duration leaseTtl, Duration stallTimeout, int limit) {
        List<RangeLease> candidates = jdbc.query(
                "SELECT range_start, range_end, position, epoch FROM scan_range WHERE task = ? AND run_id = ?"
                        + " AND done = 0 AND (heartbeat_at < " + dialect.nowPlusMillis() + " OR moved_at < "
                        + dialect.nowPlusMillis() + ") ORDER BY range_start",
                (rs, n) -> new RangeLease(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)),
                task,
                run,
                -leaseTtl.toMillis(),
                -stallTimeout.toMillis());
        List<RangeLease> won = new ArrayList<>();
        for (RangeLease candidate : candidates) {
            if (won.size() >= limit) {
                break;
            }
            // the same condition again: another node may have taken it, or its owner moved it meanwhile
            int updated = jdbc.update(
                    "UPDATE scan_range SET owner = ?, epoch = epoch + 1, heartbeat_at = " + dialect.now()
                            + ", moved_at = " + dialect.now() + " WHERE task = ? AND run_id = ? AND range_start = ?"
                            + " AND epoch = ? AND done = 0 AND (heartbeat_at < " + dialect.nowPlusMillis()
                            + " OR moved_at < " + dialect.nowPlusMillis() + ")",
                    owner,
                    task,
                    run,
                    candidate.start(),
                    candidate.epoch(),
                    -leaseTtl.toMillis(),
                    -stallTimeout.toMillis());
            if (updated == 1) {
                List<Long> position = jdbc.queryForList(
                        "SELECT position FROM scan_range WHERE task = ? AND run_id = ? AND range_start = ?"
                                + " AND epoch = ?",
                        Long.class,
                        task,
                        run,
                        candidate.start(),
                        candidate.epoch() + 1);
                if (!position.isEmpty()) {
                    won.add(new RangeLease(candidate.start(), candidate.end(), position.get(0), candidate.epoch() + 1));
                }
            }
        }
        return won;
    }

    @Override
    public List<Long> heartbeat(String task, long run, String owner, Map<Long, Long> leases) {
        return bounded.on(TABLE, () -> refreshHeartbeats(task, run, owner, leases));
    }

    private List<Long> refreshHeartbeats(String task, long run, String owner, Map<Long, Long> leases) {
        List<Long> kept = new ArrayList<>();
        leases.forEach((start, epoch) -> {
            if (jdbc.update(
                            "UPDATE scan_range SET heartbeat_at = " + dialect.now() + " WHERE task = ? AND run_id = ?"
                                    + " AND range_start = ? AND epoch = ? AND owner = ?",
                            task,
                            run,
                            start,
                            epoch,
                            owner)
                    == 1) {
                kept.add(start);
            }
        });
        return kept;
    }

    @Override
    public boolean commit(String task, RangeCommit commit) {
        return bounded.on(TABLE, () -> writeCommit(task, commit));
    }

    private boolean writeCommit(String task, RangeCommit commit) {
        if (commit.failures().isEmpty()) {
            // one statement, in autocommit: no transaction stays open between it and a COMMIT, so a node
            // frozen (SIGSTOP, a long GC pause) right after it holds no lock on its range that would block
            // the node taking the range over (RangeNodeChaosTests once froze one there: every takeover
            // waited on the row lock until cancelled, as long as the node stood still)
            return Rerun.onDeadlockOrDuplicateKey(() -> movePosition(jdbc, dialect, task, commit)) == 1;
        }
        // rerun when another node's failure of the same row was inserted meanwhile, or a deadlock's victim
        Boolean written = Rerun.onDeadlockOrDuplicateKey(
                () -> transactions.execute(status -> write(jdbc, dialect, task, commit)));
        return Boolean.TRUE.equals(written);
    }

    /**
     * Moves the range's position and records the commit's failures, in the transaction the caller runs;
     * {@code false}, having written nothing, when the range no longer holds the commit's epoch.
     */
    static boolean write(JdbcTemplate jdbc, SqlDialect dialect, String task, RangeCommit commit) {
        if (movePosition(jdbc, dialect, task, commit) != 1) {
            return false;
        }
        for (RangeFailure failure : commit.failures()) {
            JdbcRangeFailures.upsert(jdbc, dialect, task, commit.run(), failure);
        }
        return true;
    }

    private static int movePosition(JdbcTemplate jdbc, SqlDialect dialect, String task, RangeCommit commit) {
        return jdbc.update(
                "UPDATE scan_range SET position = ?, processed = processed + ?, failed = failed + ?, done = ?,"
                        + " moved_at = " + dialect.now() + ", heartbeat_at = " + dialect.now()
                        + " WHERE task = ? AND run_id = ? AND range_start = ? AND epoch = ?",
                commit.position(),
                commit.processed(),
                commit.failures().size(),
                commit.done() ? 1 : 0,
                task,
                commit.run(),
                commit.start(),
                commit.epoch());
    }

    @Override
    public RangeProgress progress(String task, long run) {
        return bounded.on(TABLE, () -> sumProgress(task, run));
    }

    private RangeProgress sumProgress(String task, long run) {
        return jdbc.query(
                "SELECT COUNT(*), COALESCE(SUM(done), 0), COALESCE(SUM(processed), 0), COALESCE(SUM(failed), 0),"
                        + " COALESCE(SUM(CASE WHEN done = 1 THEN range_end - range_start + 1"
                        + " ELSE position - range_start + 1 END), 0) FROM scan_range WHERE task = ? AND run_id = ?",
                rs -> {
                    rs.next();
                    return new RangeProgress(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5));
                },
                task,
                run);
    }
}
