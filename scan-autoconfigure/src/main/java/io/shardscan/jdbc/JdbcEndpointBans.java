package io.shardscan.jdbc;

import io.shardscan.core.EndpointBan;
import io.shardscan.core.EndpointBans;
import java.sql.Timestamp;
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

    public JdbcEndpointBans(DataSource dataSource) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        this.dialect = SqlDialect.detect(dataSource);
    }

    @Override
    public int trip(String task, String endpoint, Duration window) {
        Integer trips = transactions.execute(status -> {
            jdbc.update(
                    "INSERT INTO scan_endpoint_trip (task, endpoint, tripped_at) VALUES (?, ?, " + dialect.now() + ")",
                    task,
                    endpoint);
            jdbc.update(
                    "DELETE FROM scan_endpoint_trip WHERE task = ? AND endpoint = ? AND tripped_at < "
                            + dialect.nowPlusMillis(),
                    task,
                    endpoint,
                    -window.toMillis());
            return jdbc.queryForObject(
                    "SELECT COUNT(*) FROM scan_endpoint_trip WHERE task = ? AND endpoint = ?",
                    Integer.class,
                    task,
                    endpoint);
        });
        return trips == null ? 0 : trips;
    }

    @Override
    public void ban(String task, String endpoint, Duration ban, String reason) {
        String error = reason.length() > ERROR_LENGTH ? reason.substring(0, ERROR_LENGTH) : reason;
        transactions.executeWithoutResult(status -> {
            int updated = jdbc.update(
                    "UPDATE scan_endpoint_ban SET banned_until = " + dialect.nowPlusMillis()
                            + ", last_error = ? WHERE task = ? AND endpoint = ?",
                    ban.toMillis(),
                    error,
                    task,
                    endpoint);
            if (updated == 0) {
                jdbc.update(
                        "INSERT INTO scan_endpoint_ban (task, endpoint, banned_from, banned_until, last_error)"
                                + " VALUES (?, ?, " + dialect.now() + ", " + dialect.nowPlusMillis() + ", ?)",
                        task,
                        endpoint,
                        ban.toMillis(),
                        error);
            }
            jdbc.update("DELETE FROM scan_endpoint_trip WHERE task = ? AND endpoint = ?", task, endpoint);
        });
    }

    @Override
    public List<EndpointBan> bans(String task) {
        return jdbc.query(
                "SELECT endpoint, banned_from, banned_until, last_error, CASE WHEN banned_until > " + dialect.now()
                        + " THEN 1 ELSE 0 END FROM scan_endpoint_ban WHERE task = ? ORDER BY endpoint",
                (rs, n) -> new EndpointBan(
                        rs.getString(1),
                        instant(rs.getTimestamp(2)),
                        instant(rs.getTimestamp(3)),
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
        Boolean lifted = transactions.execute(status -> {
            jdbc.update("DELETE FROM scan_endpoint_trip WHERE task = ? AND endpoint = ?", task, endpoint);
            return jdbc.update("DELETE FROM scan_endpoint_ban WHERE task = ? AND endpoint = ?", task, endpoint) == 1;
        });
        return Boolean.TRUE.equals(lifted);
    }

    /** The database's local time read back as the instant it names in this JVM's zone, as the store writes it. */
    private static java.time.Instant instant(Timestamp timestamp) {
        return timestamp.toInstant();
    }
}
