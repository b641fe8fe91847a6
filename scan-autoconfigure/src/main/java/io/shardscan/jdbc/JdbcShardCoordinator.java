package io.shardscan.jdbc;

import io.shardscan.core.EngineSettings;
import io.shardscan.core.spi.Lease;
import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.spi.Member;
import io.shardscan.core.spi.NodeCounters;
import io.shardscan.core.spi.ShardCoordinator;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A {@link ShardCoordinator} on a lease table and a members table. Every change is one conditional
 * statement, expiry is the database's own clock, and each grant bumps the shard's epoch. A node's
 * renewals ({@link #renewAll}) run on one connection of the pool that they keep, so that they never
 * wait behind other statements for a connection; {@link #close} gives it back. Thread-safe.
 */
public final class JdbcShardCoordinator implements ShardCoordinator, AutoCloseable {

    /** Leases renewed per statement: three parameters each stay far below every driver's limit. */
    private static final int RENEWALS_PER_STATEMENT = 500;

    private final JdbcTemplate jdbc;
    private final SqlDialect dialect;
    private final KeptConnection renewals;

    public JdbcShardCoordinator(DataSource dataSource) {
        this(dataSource, SqlDialect.detect(dataSource));
    }

    /** Leases in the tables of {@code dataSource}, a database of {@code dialect}. */
    public JdbcShardCoordinator(DataSource dataSource, SqlDialect dialect) {
        // its writes are single statements of its own: they must commit whatever the pool's autocommit
        DataSource own = AutoCommitDataSource.of(dataSource);
        this.jdbc = new JdbcTemplate(own);
        this.dialect = java.util.Objects.requireNonNull(dialect, "dialect");
        this.renewals = new KeptConnection(own);
    }

    /** Gives the connection the renewals keep back to the pool; a later renewal takes another. */
    @Override
    public void close() {
        renewals.close();
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
        beat(task, node, counters);
        TickRows rows = new TickRows();
        List<Object> args = new ArrayList<>();
        jdbc.query(members(task, null, timeout, args), rows::add, args.toArray());
        return rows.members(task, timeout);
    }

    /** Records the heartbeat, inserting the member row when it is missing. */
    private void beat(String task, String node, @Nullable String counters) {
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
    }

    /**
     * The SELECT of the members other than {@code except} (all when {@code null}), each flagged
     * when silent for longer than {@code timeout}, so that the sweep that deletes silent members
     * runs only when there is one; its parameters added to {@code args}. It is the first branch of
     * a tick's {@code UNION ALL}, so every column has its type here.
     */
    private String members(String task, @Nullable String except, Duration timeout, List<Object> args) {
        args.add(-timeout.toMillis());
        args.add(task);
        if (except != null) {
            args.add(except);
        }
        return "SELECT 'm', node, " + dialect.selectNow("heartbeat_at") + ", counters, 0, 0, CASE WHEN heartbeat_at < "
                + dialect.nowPlusMillis()
                + " THEN 1 ELSE 0 END FROM scan_member WHERE task = ?" + (except == null ? "" : " AND node <> ?");
    }

    /** The SELECT of every lease of the task, flagged when live by the database's clock. */
    private String leases(String task, List<Object> args) {
        args.add(task);
        return "SELECT 'l', owner, " + dialect.selectNow("expires_at") + ", NULL, shard, epoch, CASE WHEN expires_at > "
                + dialect.now()
                + " THEN 1 ELSE 0 END FROM scan_lease WHERE task = ?";
    }

    /**
     * Where the database can ({@link SqlDialect#updatesInWith}), one statement: the heartbeat and
     * the renewal are data-modifying {@code WITH} queries, and the select returns what they changed
     * with the other members and the leases. Its reads see the tables as they were before its own
     * changes, so this node's member row and its renewed leases are taken from what the changes
     * returned. A node that is not a member (its first tick, or swept after a silence) joins with
     * the statements of {@link #heartbeat}. Elsewhere three: the heartbeat, the renewal (whose update
     * count says whether every lease was renewed; a smaller one is read off the leases) and one read
     * of the members and the leases. A silent member's sweep adds one.
     */
    /** Runs again when a statement of it was a deadlock's victim: each one is safe to repeat. */
    @Override
    public Tick tick(
            String task,
            String node,
            Duration memberTimeout,
            NodeCounters counters,
            Map<Integer, Long> held,
            Duration ttl) {
        return Rerun.onDeadlock(() -> tickOnce(task, node, memberTimeout, counters, held, ttl));
    }

    private Tick tickOnce(
            String task,
            String node,
            Duration memberTimeout,
            NodeCounters counters,
            Map<Integer, Long> held,
            Duration ttl) {
        List<Object> args = new ArrayList<>();
        TickRows rows = new TickRows();
        if (dialect.updatesInWith()) {
            args.addAll(List.of(counters.encode(), task, node));
            StringBuilder sql = new StringBuilder("WITH beat AS (UPDATE scan_member SET heartbeat_at = "
                    + dialect.now() + ", counters = ? WHERE task = ? AND node = ? RETURNING node, heartbeat_at,"
                    + " counters)");
            if (!held.isEmpty()) {
                sql.append(", renewal AS (")
                        .append(renewal(task, node, held, ttl, args))
                        .append(" RETURNING shard, expires_at)");
            }
            sql.append(" SELECT 'b', node, heartbeat_at, counters, 0, 0, 0 FROM beat UNION ALL ")
                    .append(members(task, node, memberTimeout, args));
            if (!held.isEmpty()) {
                sql.append(" UNION ALL SELECT 'r', NULL, expires_at, NULL, shard, 0, 0 FROM renewal");
            }
            sql.append(" UNION ALL ").append(leases(task, args));
            jdbc.query(sql.toString(), rows::add, args.toArray());
            if (!rows.self) {
                return new Tick(heartbeat(task, node, memberTimeout, counters), rows.renewed(), rows.leases());
            }
            return new Tick(rows.members(task, memberTimeout), rows.renewed(), rows.leases());
        }
        beat(task, node, counters.encode());
        int updated = held.isEmpty() ? 0 : jdbc.update(renewal(task, node, held, ttl, args), args.toArray());
        args.clear();
        jdbc.query(
                members(task, null, memberTimeout, args) + " UNION ALL " + leases(task, args),
                rows::add,
                args.toArray());
        // each (shard, epoch) pair matches at most one row, so an equal count renewed every lease asked for
        List<Integer> renewed = updated == held.size() ? List.copyOf(held.keySet()) : rows.heldBy(node, held);
        return new Tick(rows.members(task, memberTimeout), renewed, rows.leases());
    }

    /** The rows of a tick's or a heartbeat's read, by their first column. */
    private final class TickRows {

        private final List<Member> members = new ArrayList<>();
        private final Map<Integer, Instant> renewed = new TreeMap<>();
        private final Map<Integer, LeaseInfo> leases = new TreeMap<>();
        private boolean self;
        private boolean silent;

        void add(ResultSet rs) throws SQLException {
            switch (rs.getString(1)) {
                case "b" -> {
                    self = true;
                    members.add(member(rs));
                }
                case "m" -> {
                    if (rs.getInt(7) == 1) {
                        silent = true;
                    } else {
                        members.add(member(rs));
                    }
                }
                case "r" -> renewed.put(rs.getInt(5), dialect.readNow(rs, 3));
                default -> leases.put(rs.getInt(5), lease(rs, 5, 2, 6, 3, 7));
            }
        }

        /** The live members, sorted by node id; deletes the silent ones when there are any. */
        List<Member> members(String task, Duration timeout) {
            if (silent) {
                jdbc.update(
                        "DELETE FROM scan_member WHERE task = ? AND heartbeat_at < " + dialect.nowPlusMillis(),
                        task,
                        -timeout.toMillis());
            }
            members.sort(Comparator.comparing(Member::node));
            return members;
        }

        List<Integer> renewed() {
            return List.copyOf(renewed.keySet());
        }

        /** The shards of {@code held} whose lease is live, {@code node}'s and of the same epoch. */
        List<Integer> heldBy(String node, Map<Integer, Long> held) {
            return leases.values().stream()
                    .filter(l ->
                            node.equals(l.owner()) && Long.valueOf(l.epoch()).equals(held.get(l.shard())))
                    .map(LeaseInfo::shard)
                    .toList();
        }

        /** The leases as read, those renewed by a {@code WITH} with their new expiry. */
        List<LeaseInfo> leases() {
            renewed.forEach((shard, expires) -> leases.computeIfPresent(
                    shard, (s, lease) -> new LeaseInfo(s, lease.owner(), lease.epoch(), expires)));
            return List.copyOf(leases.values());
        }
    }

    private Member member(ResultSet rs) throws SQLException {
        return new Member(rs.getString(2), dialect.readNow(rs, 3), NodeCounters.decode(rs.getString(4)));
    }

    /**
     * Runs again when a statement of it was a deadlock's victim: a claim that landed before is
     * read back as this node's.
     */
    @Override
    public Optional<Lease> tryAcquire(String task, int shard, String node, Duration ttl) {
        return Rerun.onDeadlock(() -> tryAcquireOnce(task, shard, node, ttl));
    }

    private Optional<Lease> tryAcquireOnce(String task, int shard, String node, Duration ttl) {
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
        List<Object> args = new ArrayList<>();
        int updated = jdbc.update(renewal(task, node, leases, ttl, args), args.toArray());
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

    /**
     * Every task's leases of {@code node} in one UPDATE (one per 500 leases), on the connection the
     * renewals keep, each statement timing out after a third of {@code ttl}: a renewal that waits
     * longer is of no use, the leases lapse meanwhile. A smaller update count than leases asked for
     * (some refused, or a driver counting only changed rows) reads the node's live leases back.
     */
    @Override
    public Map<String, List<Integer>> renewAll(String node, Map<String, Map<Integer, Long>> held, Duration ttl) {
        List<Object[]> asked = new ArrayList<>();
        held.forEach((task, leases) -> leases.forEach((shard, epoch) -> asked.add(new Object[] {task, shard, epoch})));
        Map<String, List<Integer>> renewed = new TreeMap<>();
        if (asked.isEmpty()) {
            return renewed;
        }
        return renewals.run(
                EngineSettings.callTimeout(ttl),
                template -> Rerun.onDeadlock(() -> {
                    int updated = 0;
                    for (int from = 0; from < asked.size(); from += RENEWALS_PER_STATEMENT) {
                        List<Object[]> chunk =
                                asked.subList(from, Math.min(asked.size(), from + RENEWALS_PER_STATEMENT));
                        List<Object> args = new ArrayList<>(List.of(ttl.toMillis(), node));
                        StringBuilder which = new StringBuilder();
                        for (Object[] lease : chunk) {
                            which.append(which.length() == 0 ? "" : " OR ")
                                    .append("(task = ? AND shard = ? AND epoch = ?)");
                            args.addAll(List.of(lease));
                        }
                        updated += template.update(
                                "UPDATE scan_lease SET expires_at = " + dialect.nowPlusMillis() + " WHERE owner = ?"
                                        + " AND expires_at > " + dialect.now() + " AND (" + which + ")",
                                args.toArray());
                    }
                    if (updated == asked.size()) {
                        held.forEach((task, leases) -> renewed.put(task, List.copyOf(leases.keySet())));
                        return renewed;
                    }
                    template.query(
                            "SELECT task, shard, epoch FROM scan_lease WHERE owner = ? AND expires_at > "
                                    + dialect.now(),
                            rs -> {
                                Map<Integer, Long> leases = held.get(rs.getString(1));
                                Long epoch = leases == null ? null : leases.get(rs.getInt(2));
                                if (epoch != null && epoch == rs.getLong(3)) {
                                    renewed.computeIfAbsent(rs.getString(1), t -> new ArrayList<>())
                                            .add(rs.getInt(2));
                                }
                            },
                            node);
                    return renewed;
                }));
    }

    /**
     * Where the database can ({@link SqlDialect#updatesInWith}), the renewals and every tick asked in
     * one statement ({@link NodeTickStatement}) per 500 leases, on the connection the renewals keep,
     * with their timeout: a settled node on PostgreSQL costs one statement per renew interval and 500
     * leases, not one per task and one for the renewals (200 tasks of 8 shards ticked on their own
     * before, as soon as the node held over 500 leases: 102 statements a second instead of 2). A task
     * is in one statement with all its leases; one holding more than a statement takes is renewed by
     * {@link #renewAll} and ticks on its own. A task this node is not a member of is left out, and
     * joins at its own tick; a silent member is swept as at a tick. Elsewhere {@link #renewAll} and no
     * tick.
     */
    @Override
    public NodeTick renewAllAndTick(
            String node,
            Map<String, Map<Integer, Long>> held,
            Duration ttl,
            Duration memberTimeout,
            Map<String, NodeCounters> ticks) {
        if (ticks.isEmpty() || !dialect.updatesInWith()) {
            return new NodeTick(renewAll(node, held, ttl), Map.of());
        }
        Map<String, List<Integer>> renewed = new TreeMap<>();
        Map<String, Tick> answered = new TreeMap<>();
        Map<String, Map<Integer, Long>> alone = new TreeMap<>();
        Map<String, Map<Integer, Long>> groupHeld = new TreeMap<>();
        Map<String, NodeCounters> groupTicks = new TreeMap<>();
        int groupLeases = 0;
        Set<String> tasks = new TreeSet<>(held.keySet());
        tasks.addAll(ticks.keySet());
        for (String task : tasks) {
            Map<Integer, Long> leases = held.getOrDefault(task, Map.of());
            if (leases.size() > RENEWALS_PER_STATEMENT) {
                alone.put(task, leases);
                continue;
            }
            if (groupLeases + leases.size() > RENEWALS_PER_STATEMENT) {
                renewAndTick(node, groupHeld, ttl, memberTimeout, groupTicks, renewed, answered);
                groupHeld = new TreeMap<>();
                groupTicks = new TreeMap<>();
                groupLeases = 0;
            }
            if (!leases.isEmpty()) {
                groupHeld.put(task, leases);
                groupLeases += leases.size();
            }
            if (ticks.containsKey(task)) {
                groupTicks.put(task, ticks.get(task));
            }
        }
        renewAndTick(node, groupHeld, ttl, memberTimeout, groupTicks, renewed, answered);
        if (!alone.isEmpty()) {
            renewed.putAll(renewAll(node, alone, ttl));
        }
        return new NodeTick(renewed, answered);
    }

    /**
     * One {@link NodeTickStatement} of some tasks' leases and ticks (a {@link #renewAll} without a
     * tick), its answers added to {@code renewed} and {@code answered}.
     */
    private void renewAndTick(
            String node,
            Map<String, Map<Integer, Long>> held,
            Duration ttl,
            Duration memberTimeout,
            Map<String, NodeCounters> ticks,
            Map<String, List<Integer>> renewed,
            Map<String, Tick> answered) {
        if (ticks.isEmpty()) {
            if (!held.isEmpty()) {
                renewed.putAll(renewAll(node, held, ttl));
            }
            return;
        }
        NodeTickStatement statement = new NodeTickStatement(dialect, node, held, ttl, memberTimeout, ticks);
        Map<String, TickRows> byTask = renewals.run(
                EngineSettings.callTimeout(ttl),
                template -> Rerun.onDeadlock(() -> {
                    Map<String, TickRows> rows = new TreeMap<>();
                    template.query(
                            statement.sql,
                            rs -> {
                                rows.computeIfAbsent(rs.getString(8), t -> new TickRows())
                                        .add(rs);
                            },
                            statement.args.toArray());
                    return rows;
                }));
        held.keySet()
                .forEach(task -> renewed.put(
                        task, byTask.containsKey(task) ? byTask.get(task).renewed() : List.of()));
        ticks.keySet().forEach(task -> {
            TickRows rows = byTask.get(task);
            if (rows != null && rows.self) {
                answered.put(task, new Tick(rows.members(task, memberTimeout), rows.renewed(), rows.leases()));
            }
        });
    }

    /**
     * The UPDATE that extends the leases {@code node} holds with the given epochs, its parameters
     * added to {@code args}.
     */
    private String renewal(String task, String node, Map<Integer, Long> leases, Duration ttl, List<Object> args) {
        StringBuilder held = new StringBuilder();
        args.addAll(List.of(ttl.toMillis(), task, node));
        leases.forEach((shard, epoch) -> {
            held.append(held.length() == 0 ? "" : " OR ").append("(shard = ? AND epoch = ?)");
            args.add(shard);
            args.add(epoch);
        });
        return "UPDATE scan_lease SET expires_at = " + dialect.nowPlusMillis() + " WHERE task = ? AND owner = ?"
                + " AND expires_at > " + dialect.now() + " AND (" + held + ")";
    }

    /**
     * A lease read from the given columns; its owner and expiry only while it is live, as the
     * database's clock decided in column {@code live}.
     */
    private LeaseInfo lease(ResultSet rs, int shard, int owner, int epoch, int expires, int live) throws SQLException {
        boolean isLive = rs.getInt(live) == 1;
        Instant expiresAt = dialect.readNow(rs, expires);
        return new LeaseInfo(
                rs.getInt(shard), isLive ? rs.getString(owner) : null, rs.getLong(epoch), isLive ? expiresAt : null);
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
                "SELECT shard, owner, epoch, " + dialect.selectNow("expires_at") + ", CASE WHEN expires_at > "
                        + dialect.now()
                        + " THEN 1 ELSE 0 END FROM scan_lease WHERE task = ? ORDER BY shard",
                (rs, n) -> lease(rs, 1, 2, 3, 4, 5),
                task);
    }
}
