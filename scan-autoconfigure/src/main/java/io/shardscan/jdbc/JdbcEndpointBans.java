package io.shardscan.jdbc;

import io.shardscan.core.spi.EndpointBan;
import io.shardscan.core.spi.EndpointBans;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@link EndpointBans} in the database, for applications without Redis: trips in
 * {@code scan_endpoint_trip}, bans in {@code scan_endpoint_ban}, every time taken from the
 * database's own clock (never a node's). Thread-safe.
 */
public final class JdbcEndpointBans implements EndpointBans {

    private static final int ERROR_LENGTH = 512;

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final SqlDialect dialect;

    public JdbcEndpointBans(DataSource dataSource) {
        this(dataSource, SqlDialect.detect(dataSource));
    }

    /** The blacklist in the tables of {@code dataSource}, a database of {@code dialect}. */
    public JdbcEndpointBans(DataSource dataSource, SqlDialect dialect) {
        // its writes are its own, never an application's transaction's: they must commit whatever the pool's autocommit
        DataSource own = AutoCommitDataSource.of(dataSource);
        this.jdbc = new JdbcTemplate(own);
        this.transactions = new TransactionTemplate(new DataSourceTransactionManager(own));
        this.dialect = java.util.Objects.requireNonNull(dialect, "dialect");
    }

    /**
     * Three statements, each its own transaction: the trip, the endpoint's trips older than the
     * window deleted, the count of those left (with other nodes' trips of the same moment). Not one
     * transaction: its insert held the new trip's lock while its delete waited for a ban's, whose
     * delete of the endpoint's trips waited for the new one, a deadlock on MySQL and MariaDB. The
     * insert and the delete still meet other nodes' deletes in the index's gaps, so each is
     * {@linkplain Rerun#onDeadlock rerun} when it is a deadlock's victim.
     */
    @Override
    public int trip(String task, String endpoint, Duration window) {
        Rerun.onDeadlock(() -> jdbc.update(
                "INSERT INTO scan_endpoint_trip (task, endpoint, tripped_at) VALUES (?, ?, " + dialect.now() + ")",
                task,
                endpoint));
        Rerun.onDeadlock(() -> jdbc.update(
                "DELETE FROM scan_endpoint_trip WHERE task = ? AND endpoint = ? AND tripped_at < "
                        + dialect.nowPlusMillis(),
                task,
                endpoint,
                -window.toMillis()));
        Integer trips = jdbc.queryForObject(
                "SELECT COUNT(*) FROM scan_endpoint_trip WHERE task = ? AND endpoint = ?",
                Integer.class,
                task,
                endpoint);
        return trips == null ? 0 : trips;
    }

    /**
     * Up to three statements, each its own transaction and each a step no other node's ban can
     * split: a ban that ended started again (its start kept), else a first ban inserted unless
     * present, else the ban in force extended; then the trips that made it deleted. Of nodes banning
     * one endpoint at once, one starts the ban. Not one transaction: on MariaDB the gap locks of a
     * missing row's update and of two first inserts deadlocked eight nodes banning a new endpoint.
     * A ban lifted between the insert and the extension stays lifted.
     */
    @Override
    public boolean ban(String task, String endpoint, Duration ban, String reason) {
        String error = reason.length() > ERROR_LENGTH ? reason.substring(0, ERROR_LENGTH) : reason;
        String extend = "UPDATE scan_endpoint_ban SET banned_until = " + dialect.nowPlusMillis()
                + ", last_error = ? WHERE task = ? AND endpoint = ?";
        boolean started = Rerun.onDeadlock(() -> jdbc.update(
                                extend + " AND banned_until <= " + dialect.now(),
                                ban.toMillis(),
                                error,
                                task,
                                endpoint))
                        == 1
                || insertedFirst(task, endpoint, ban, error);
        if (!started) {
            Rerun.onDeadlock(() -> jdbc.update(extend, ban.toMillis(), error, task, endpoint));
        }
        Rerun.onDeadlock(
                () -> jdbc.update("DELETE FROM scan_endpoint_trip WHERE task = ? AND endpoint = ?", task, endpoint));
        return started;
    }

    private boolean insertedFirst(String task, String endpoint, Duration ban, String error) {
        try {
            return Rerun.onDeadlock(() -> jdbc.update(
                            dialect.insertCountingNew(
                                    "scan_endpoint_ban",
                                    "task, endpoint, banned_from, banned_until, last_error",
                                    "?, ?, " + dialect.now() + ", " + dialect.nowPlusMillis() + ", ?"),
                            task,
                            endpoint,
                            ban.toMillis(),
                            error))
                    == 1;
        } catch (DuplicateKeyException e) {
            return false; // H2's insert: another node's first ban came first
        }
    }

    @Override
    public List<EndpointBan> bans(String task) {
        return jdbc.query(
                "SELECT endpoint, " + dialect.selectNow("banned_from") + ", " + dialect.selectNow("banned_until")
                        + ", last_error, CASE WHEN banned_until > " + dialect.now()
                        + " THEN 1 ELSE 0 END FROM scan_endpoint_ban WHERE task = ? ORDER BY endpoint",
                (rs, n) -> new EndpointBan(
                        rs.getString(1),
                        dialect.readNow(rs, 2),
                        dialect.readNow(rs, 3),
                        rs.getString(4),
                        rs.getInt(5) == 1),
                task);
    }

    @Override
    public boolean claimProbe(String task, String endpoint, Duration hold) {
        return jdbc.update(
                        "UPDATE scan_endpoint_ban SET banned_until = " + dialect.nowPlusMillis()
                                + " WHERE task = ? AND endpoint = ? AND banned_until <= " + dialect.now(),
                        hold.toMillis(),
                        task,
                        endpoint)
                == 1;
    }

    @Override
    public boolean lift(String task, String endpoint) {
        Boolean lifted = Rerun.onDeadlock(() -> transactions.execute(status -> {
            jdbc.update("DELETE FROM scan_endpoint_trip WHERE task = ? AND endpoint = ?", task, endpoint);
            return jdbc.update("DELETE FROM scan_endpoint_ban WHERE task = ? AND endpoint = ?", task, endpoint) == 1;
        }));
        return Boolean.TRUE.equals(lifted);
    }
}
