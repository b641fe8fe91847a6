package io.shardscan.testsupport;

import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.ScanContext;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.jdbc.SchemaDdl;
import io.shardscan.jdbc.SqlDialect;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The scanned table of the tests, {@code tb_order}, with its effects table {@code effect}, created
 * with the DDL and index docs/guides/table-and-indexes.md documents for each database: the statements
 * {@link SchemaDdl} writes, as the startup check prints them.
 */
public final class OrderTable {

    private final JdbcTemplate jdbc;
    private final SqlDialect dialect;
    private int stores;

    public OrderTable(DataSource dataSource) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.dialect = SqlDialect.detect(dataSource);
    }

    public JdbcTemplate jdbc() {
        return jdbc;
    }

    public boolean postgres() {
        return dialect.name().equals("postgresql");
    }

    private boolean isMySql() {
        return dialect.name().equals("mysql");
    }

    /** Drops and creates tb_order (with the scan index when {@code indexed}) and an empty effect table. */
    public OrderTable recreate(int shards, boolean indexed) {
        return recreate(shards, indexed, SchemaDdl.shardOf("user_id", shards));
    }

    /**
     * As {@link #recreate(int, boolean)} with the scan index, keyed by the plain {@code MOD(user_id, N)}
     * of earlier builds, which gives a negative user a negative shard.
     */
    public OrderTable recreateKeyedByPlainMod(int shards) {
        return recreate(shards, true, "MOD(user_id, " + shards + ")");
    }

    /** A task {@code name} over tb_order's orders, keyed by user, in {@code shards} shards: the task most tests run. */
    public static TaskDefinition.Builder task(String name, int shards) {
        return TaskDefinition.builder(name)
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(shards);
    }

    /** The task the table's indexes serve: {@code shards} shards, the default tiers, due at {@code due_at} when {@code due}. */
    private static TaskDefinition task(int shards, boolean due) {
        return task("orders", shards).dueAtColumn(due ? "due_at" : null).build();
    }

    private OrderTable recreate(int shards, boolean indexed, String shard) {
        stores = 0;
        jdbc.execute("DROP TABLE IF EXISTS tb_order");
        jdbc.execute("DROP TABLE IF EXISTS effect");
        jdbc.execute("CREATE TABLE tb_order (order_id BIGINT PRIMARY KEY, user_id BIGINT NOT NULL,"
                + " phone VARCHAR(32), status SMALLINT NOT NULL DEFAULT 0, retry_count INT NOT NULL DEFAULT 0,"
                + " updated_at " + dialect.timestampType() + " NOT NULL, last_error VARCHAR(512))");
        jdbc.execute("CREATE TABLE effect (order_id BIGINT NOT NULL, user_id BIGINT NOT NULL, node VARCHAR(128),"
                + " epoch BIGINT NOT NULL, seq BIGINT NOT NULL)");
        if (indexed) {
            // a shard other than the formula's (the plain MOD of earlier builds) replaces it in the same statements
            SchemaDdl.scanIndexStatements(dialect, task(shards, false))
                    .forEach(statement -> jdbc.execute(statement.replace(SchemaDdl.shardOf("user_id", shards), shard)));
        }
        return this;
    }

    /**
     * Adds a nullable {@code due_at} timestamp column and the index docs/guides/delayed-rows.md documents for a
     * task with {@code due-at-column: due_at}; call after {@link #recreate} with an index.
     */
    public OrderTable withDueAt(int shards) {
        withDueAtColumn();
        return dueIndex(shards);
    }

    private OrderTable dueIndex(int shards) {
        // the shard column, where there is one, came with the scan index
        SchemaDdl.indexStatements(dialect, task(shards, true)).forEach(jdbc::execute);
        return this;
    }

    /**
     * As {@link #withDueAt(int)}, with {@code due_at} of the database's time-zone-aware type:
     * PostgreSQL {@code TIMESTAMPTZ}, H2 {@code TIMESTAMP WITH TIME ZONE}, MariaDB {@code TIMESTAMP}
     * (stored in UTC, shown in the session's zone).
     */
    public OrderTable withZonedDueAt(int shards) {
        jdbc.execute("ALTER TABLE tb_order ADD COLUMN due_at "
                + (postgres() ? "TIMESTAMPTZ" : isMySql() ? "TIMESTAMP(6) NULL" : "TIMESTAMP WITH TIME ZONE"));
        return dueIndex(shards);
    }

    /** Adds a nullable {@code due_at} timestamp column, without an index. */
    public OrderTable withDueAtColumn() {
        jdbc.execute("ALTER TABLE tb_order ADD COLUMN due_at " + dialect.timestampType());
        return this;
    }

    /**
     * Adds a {@code store_id} column, the receiver of each order, and gives every order the store
     * {@code user_id % stores}, so that one user's orders go to one store. Orders inserted later get
     * their store in the insert itself: an engine may already be running, and an update after it would
     * race the engine's own write-back (it deadlocked with it on PostgreSQL, and rows were handled
     * before they had a store).
     */
    public OrderTable withStores(int stores) {
        if (columns().stream().noneMatch("store_id"::equalsIgnoreCase)) {
            jdbc.execute("ALTER TABLE tb_order ADD COLUMN store_id INT");
        }
        jdbc.update("UPDATE tb_order SET store_id = MOD(user_id, " + stores + ")");
        this.stores = stores;
        return this;
    }

    private List<String> columns() {
        return jdbc.query("SELECT * FROM tb_order WHERE 1 = 0", rs -> {
            List<String> names = new ArrayList<>();
            for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                names.add(rs.getMetaData().getColumnName(i));
            }
            return names;
        });
    }

    /** Inserts orders 1..count; order i belongs to user {@code i % users}. */
    public OrderTable insert(int count, int users, Instant updatedAt) {
        return insert(1, count, users, updatedAt);
    }

    /**
     * Inserts orders firstId..firstId + count - 1; order i belongs to user {@code i % users}. Their
     * {@code updated_at} holds {@code updatedAt} in UTC, as the engine stamps it; after {@link
     * #withStores} each also holds its store.
     */
    public OrderTable insert(long firstId, int count, int users, Instant updatedAt) {
        List<Object[]> rows = new ArrayList<>(count);
        for (long id = firstId; id < firstId + count; id++) {
            long user = id % users;
            rows.add(
                    stores == 0
                            ? new Object[] {id, user, "+1555" + id, utc(updatedAt)}
                            : new Object[] {id, user, "+1555" + id, utc(updatedAt), user % stores});
        }
        String sql = stores == 0
                ? "INSERT INTO tb_order (order_id, user_id, phone, updated_at) VALUES (?, ?, ?, ?)"
                : "INSERT INTO tb_order (order_id, user_id, phone, updated_at, store_id) VALUES (?, ?, ?, ?, ?)";
        for (int from = 0; from < rows.size(); from += 5000) {
            jdbc.batchUpdate(sql, rows.subList(from, Math.min(rows.size(), from + 5000)));
        }
        return this;
    }

    /** Records that a handler ran for {@code row}: on which node, under which lease epoch, in which order. */
    public Outcome recordEffect(Row row, ScanContext ctx, long seq) {
        jdbc.update(
                "INSERT INTO effect (order_id, user_id, node, epoch, seq) VALUES (?, ?, ?, ?, ?)",
                row.id(),
                row.shardKey(),
                ctx.node(),
                ctx.epoch(),
                seq);
        return Outcome.done();
    }

    /** An instant as the zone-less UTC value the engine stamps {@code updated_at} with. */
    public static java.time.LocalDateTime utc(Instant instant) {
        return java.time.LocalDateTime.ofInstant(instant, java.time.ZoneOffset.UTC);
    }

    /**
     * The database's clock in UTC less {@code ago}, as SQL: what the engine stamps {@code updated_at}
     * with, so that a test can move a row's last update back on the clock the engine measures rests by
     * (a settable node clock no longer moves it).
     */
    public String utcNowMinus(java.time.Duration ago) {
        long millis = ago.toMillis();
        if (postgres()) {
            return "((statement_timestamp() AT TIME ZONE 'UTC') - INTERVAL '" + millis + " milliseconds')";
        }
        if (isMySql()) {
            return "TIMESTAMPADD(MICROSECOND, " + (-millis * 1000) + ", UTC_TIMESTAMP(3))";
        }
        return "DATEADD(MILLISECOND, " + (-millis) + ", DATEADD(SECOND, -(EXTRACT(TIMEZONE_HOUR FROM"
                + " CURRENT_TIMESTAMP) * 3600 + EXTRACT(TIMEZONE_MINUTE FROM CURRENT_TIMESTAMP) * 60), LOCALTIMESTAMP))";
    }

    /**
     * Sets the last update of the rows {@code where} selects to {@code ago} before the database's clock
     * now: how a test makes a failed row rest, now that the engine measures rests by that clock alone.
     */
    public OrderTable updatedAgo(String where, java.time.Duration ago) {
        jdbc.update("UPDATE tb_order SET updated_at = " + utcNowMinus(ago) + " WHERE " + where);
        return this;
    }

    /** The instant a zone-less {@code updated_at} value the engine stamped stands for. */
    public Instant updatedAt(long orderId) {
        return jdbc.queryForObject(
                        "SELECT updated_at FROM tb_order WHERE order_id = ?", java.time.LocalDateTime.class, orderId)
                .toInstant(java.time.ZoneOffset.UTC);
    }

    /** The database's clock now, read as {@link #utcNowMinus} spells it. */
    public Instant databaseNow() {
        return jdbc.queryForObject("SELECT " + utcNowMinus(java.time.Duration.ZERO), java.time.LocalDateTime.class)
                .toInstant(java.time.ZoneOffset.UTC);
    }

    public int count(String where) {
        return jdbc.queryForObject("SELECT COUNT(*) FROM tb_order WHERE " + where, Integer.class);
    }

    public int effects() {
        return jdbc.queryForObject("SELECT COUNT(*) FROM effect", Integer.class);
    }

    /** Orders without an effect: rows no handler ran, lost whatever their status says. */
    public int ordersWithoutEffect() {
        return jdbc.queryForObject(
                "SELECT COUNT(*) FROM tb_order o WHERE NOT EXISTS (SELECT 1 FROM effect e WHERE e.order_id = o.order_id)",
                Integer.class);
    }

    /**
     * The (shard, fence epoch) pairs, as {@code shard/epoch}, whose effects more than one node wrote: two
     * writers under one epoch, which fencing must rule out. The shard is {@code user_id mod shards}.
     */
    public List<String> epochsWrittenByTwoNodes(int shards) {
        return jdbc.queryForList(
                "SELECT mod(user_id, " + shards + ") || '/' || epoch FROM effect GROUP BY mod(user_id, " + shards
                        + "), epoch HAVING COUNT(DISTINCT node) > 1",
                String.class);
    }

    /**
     * Effects of a shard, in the order of their {@code seq}, whose epoch is lower than that of an earlier
     * effect of the same shard: a handler that ran after a newer owner of its shard had started.
     */
    public int epochsGoingBackwards(int shards) {
        return jdbc.queryForObject(
                "SELECT COUNT(*) FROM (SELECT epoch, LAG(epoch) OVER (PARTITION BY mod(user_id, " + shards
                        + ") ORDER BY seq) AS previous FROM effect) e WHERE e.previous > e.epoch",
                Integer.class);
    }

    /**
     * Effects under an epoch newer than their shard's fence in {@code scan_fence}: an epoch the
     * database never issued to an owner of that shard of {@code task}.
     */
    public int effectsNewerThanTheirFence(String task, int shards) {
        return jdbc.queryForObject(
                "SELECT COUNT(*) FROM effect e JOIN scan_fence f ON f.task = ? AND f.shard = mod(e.user_id, " + shards
                        + ") WHERE e.epoch > f.epoch",
                Integer.class,
                task);
    }

    public int duplicateEffects() {
        return jdbc.queryForObject(
                "SELECT COUNT(*) FROM (SELECT order_id FROM effect GROUP BY order_id" + " HAVING COUNT(*) > 1) d",
                Integer.class);
    }

    /** Creates Shardscan's own tables from the starter's own scripts, and empties them. */
    public OrderTable coordinationTables() {
        org.springframework.jdbc.datasource.init.ResourceDatabasePopulator populator =
                new org.springframework.jdbc.datasource.init.ResourceDatabasePopulator();
        io.shardscan.jdbc.OwnSchema.scriptLocations(dialect)
                .forEach(location -> populator.addScript(
                        new org.springframework.core.io.DefaultResourceLoader().getResource(location)));
        populator.execute(jdbc.getDataSource());
        jdbc.execute("DELETE FROM scan_lease");
        jdbc.execute("DELETE FROM scan_member");
        jdbc.execute("DELETE FROM scan_fence");
        jdbc.execute("DELETE FROM scan_task");
        jdbc.execute("DELETE FROM scan_endpoint_trip");
        jdbc.execute("DELETE FROM scan_endpoint_ban");
        jdbc.execute("DELETE FROM scan_range_cursor");
        jdbc.execute("DELETE FROM scan_range");
        jdbc.execute("DELETE FROM scan_range_failure");
        return this;
    }
}
