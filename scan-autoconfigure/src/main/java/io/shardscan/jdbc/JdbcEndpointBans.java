package io.shardscan.jdbc;

import io.shardscan.core.EndpointBan;
import io.shardscan.core.EndpointBans;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
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
    private final RowUpsert banRow;

    public JdbcEndpointBans(DataSource dataSource) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        this.dialect = SqlDialect.detect(dataSource);
        this.banRow = new RowUpsert(
                "scan_endpoint_ban",
                List.of("task", "endpoint"),
                "task, endpoint, banned_from, banned_until, last_error",
                "?, ?, " + dialect.now() + ", " + dialect.nowPlusMillis() + ", ?",
                "banned_until = " + dialect.nowPlusMillis() + ", last_error = ?");
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
     * One transaction: the ban (its start kept when it is renewed; one {@link RowUpsert}, so that
     * nodes banning a new endpoint at once neither deadlock nor fail), then the trips that made it
     * deleted. The transaction {@linkplain Rerun#onDeadlockOrDuplicateKey runs once more} when it
     * is a deadlock's victim, or, where the upsert is an update, then an insert, when another node
     * inserted the ban meanwhile.
     */
    @Override
    public void ban(String task, String endpoint, Duration ban, String reason) {
        String error = reason.length() > ERROR_LENGTH ? reason.substring(0, ERROR_LENGTH) : reason;
        Rerun.onDeadlockOrDuplicateKey(() -> banOnce(task, endpoint, ban, error));
    }

    private void banOnce(String task, String endpoint, Duration ban, String error) {
        transactions.executeWithoutResult(status -> {
            banRow.write(
                    jdbc,
                    dialect,
                    new Object[] {task, endpoint},
                    new Object[] {task, endpoint, ban.toMillis(), error},
                    new Object[] {ban.toMillis(), error});
            jdbc.update("DELETE FROM scan_endpoint_trip WHERE task = ? AND endpoint = ?", task, endpoint);
        });
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
