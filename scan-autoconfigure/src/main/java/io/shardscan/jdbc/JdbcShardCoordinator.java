package io.shardscan.jdbc;

import io.shardscan.core.Lease;
import io.shardscan.core.LeaseInfo;
import io.shardscan.core.Member;
import io.shardscan.core.NodeCounters;
import io.shardscan.core.ShardCoordinator;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A {@link ShardCoordinator} on a lease table and a members table. Every change is one conditional
 * statement, expiry is the database's own clock, and each grant bumps the shard's epoch.
 * Thread-safe.
 */
public final class JdbcShardCoordinator implements ShardCoordinator {

    private final JdbcTemplate jdbc;
    private final SqlDialect dialect;

    public JdbcShardCoordinator(DataSource dataSource) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.dialect = SqlDialect.detect(dataSource);
    }

    @Override
    public String kind() {
        return "jdbc";
    }

    @Override
    public List<Member> heartbeat(String task, String node, Duration timeout) {
        return heartbeat(task, node, timeout, (String) null);
    }

    @Override
    public List<Member> heartbeat(String task, String node, Duration timeout, NodeCounters counters) {
        return heartbeat(task, node, timeout, counters.encode());
    }

    private List<Member> heartbeat(String task, String node, Duration timeout, @Nullable String counters) {
        String now = dialect.now();
        if (jdbc.update(
                        "UPDATE scan_member SET heartbeat_at = " + now + ", counters = ? WHERE task = ? AND node = ?",
                        counters,
                        task,
                        node)
                == 0) {
            try {
                jdbc.update(
                        "INSERT INTO scan_member (task, node, heartbeat_at, counters) VALUES (?, ?, " + now + ", ?)",
                        task,
                        node,
                        counters);
            } catch (DuplicateKeyException e) {
                // another thread of this node inserted it first: the heartbeat is recorded either way
            }
        }
        // the members read flags the silent ones, so the sweep that deletes them runs only when there is one
        List<Member> live = new ArrayList<>();
        boolean[] silent = {false};
        jdbc.query(
                "SELECT node, heartbeat_at, counters, CASE WHEN heartbeat_at < " + dialect.nowPlusMillis()
                        + " THEN 1 ELSE 0 END FROM scan_member WHERE task = ? ORDER BY node",
                rs -> {
                    if (rs.getInt(4) == 1) {
                        silent[0] = true;
                    } else {
                        live.add(new Member(
                                rs.getString(1), rs.getTimestamp(2).toInstant(), NodeCounters.decode(rs.getString(3))));
                    }
                },
                -timeout.toMillis(),
                task);
        if (silent[0]) {
            jdbc.update(
                    "DELETE FROM scan_member WHERE task = ? AND heartbeat_at < " + dialect.nowPlusMillis(),
                    task,
                    -timeout.toMillis());
        }
        return live;
    }

    @Override
    public Optional<Lease> tryAcquire(String task, int shard, String node, Duration ttl) {
        int updated = jdbc.update(
                "UPDATE scan_lease SET owner = ?, epoch = epoch + 1, expires_at = " + dialect.nowPlusMillis()
                        + " WHERE task = ? AND shard = ? AND (owner IS NULL OR expires_at < " + dialect.now() + ")",
                node,
                ttl.toMillis(),
                task,
                shard);
        if (updated == 0 && !leaseRowExists(task, shard)) {
            // the shard's first lease; an INSERT that fails on an existing row would make the
            // driver log a duplicate key on every claim of a held shard
            try {
                jdbc.update(
                        dialect.insertUnlessPresent(
                                "scan_lease",
                                "task, shard, owner, epoch, expires_at",
                                "?, ?, ?, 1, " + dialect.nowPlusMillis()),
                        task,
                        shard,
                        node,
                        ttl.toMillis());
            } catch (DuplicateKeyException e) {
                return Optional.empty();
            }
        }
        List<Long> epoch = jdbc.queryForList(
                "SELECT epoch FROM scan_lease WHERE task = ? AND shard = ? AND owner = ?",
                Long.class,
                task,
                shard,
                node);
        return epoch.isEmpty() ? Optional.empty() : Optional.of(new Lease(shard, epoch.get(0)));
    }

    private boolean leaseRowExists(String task, int shard) {
        return !jdbc.queryForList("SELECT 1 FROM scan_lease WHERE task = ? AND shard = ?", Integer.class, task, shard)
                .isEmpty();
    }

    @Override
    public List<Integer> renew(String task, String node, Map<Integer, Long> leases, Duration ttl) {
        if (leases.isEmpty()) {
            return List.of();
        }
        StringBuilder held = new StringBuilder();
        List<Object> args = new ArrayList<>(List.of(ttl.toMillis(), task, node));
        leases.forEach((shard, epoch) -> {
            held.append(held.length() == 0 ? "" : " OR ").append("(shard = ? AND epoch = ?)");
            args.add(shard);
            args.add(epoch);
        });
        int updated = jdbc.update(
                "UPDATE scan_lease SET expires_at = " + dialect.nowPlusMillis() + " WHERE task = ? AND owner = ?"
                        + " AND expires_at > " + dialect.now() + " AND (" + held + ")",
                args.toArray());
        if (updated == leases.size()) {
            // each (shard, epoch) pair matches at most one row, so every lease asked for was renewed;
            // a smaller count (some refused, or a driver counting only changed rows) reads them back
            return List.copyOf(leases.keySet());
        }
        List<Integer> renewed = new ArrayList<>();
        jdbc.query(
                "SELECT shard, epoch FROM scan_lease WHERE task = ? AND owner = ? AND expires_at > " + dialect.now(),
                rs -> {
                    int shard = rs.getInt(1);
                    Long epoch = leases.get(shard);
                    if (epoch != null && epoch == rs.getLong(2)) {
                        renewed.add(shard);
                    }
                },
                task,
                node);
        return renewed;
    }

    @Override
    public void release(String task, int shard, String node, long epoch) {
        jdbc.update(
                "UPDATE scan_lease SET owner = NULL, expires_at = NULL WHERE task = ? AND shard = ? AND owner = ?"
                        + " AND epoch = ?",
                task,
                shard,
                node,
                epoch);
    }

    @Override
    public void leave(String task, String node) {
        jdbc.update("DELETE FROM scan_member WHERE task = ? AND node = ?", task, node);
    }

    @Override
    public List<LeaseInfo> leases(String task) {
        return jdbc.query(
                "SELECT shard, owner, epoch, expires_at, CASE WHEN expires_at > " + dialect.now()
                        + " THEN 1 ELSE 0 END FROM scan_lease WHERE task = ? ORDER BY shard",
                (rs, n) -> {
                    boolean live = rs.getInt(5) == 1;
                    Timestamp expires = rs.getTimestamp(4);
                    return new LeaseInfo(
                            rs.getInt(1),
                            live ? rs.getString(2) : null,
                            rs.getLong(3),
                            live && expires != null ? expires.toInstant() : null);
                },
                task);
    }
}
