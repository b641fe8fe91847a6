package io.shardscan.jdbc;

import io.shardscan.core.task.TaskDefinition;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/** MySQL and MariaDB: back-quoted names, a stored generated shard column. */
final class MySqlDialect extends GeneratedShardColumnDialect {

    @Override
    public String name() {
        return "mysql";
    }

    /**
     * MariaDB's driver bounds a statement with {@code max_statement_time} (error 1969) and MySQL's
     * with a {@code KILL QUERY} (1317, "query execution was interrupted"); either may come without
     * an SQLTimeoutException.
     */
    @Override
    protected boolean cancelledByTimeout(SQLException e) {
        return super.cancelledByTimeout(e) || e.getErrorCode() == 1969 || e.getErrorCode() == 1317;
    }

    @Override
    protected String quote(String identifier) {
        return '`' + identifier + '`';
    }

    /** MySQL alters a column's nullability and default only by restating its type. */
    @Override
    protected List<String> retryColumnNotNull(TaskDefinition task, String type) {
        return List.of(
                nullRetriesToZero(task),
                "ALTER TABLE " + task.table() + " MODIFY COLUMN "
                        + task.columns().retry() + " " + type + " NOT NULL DEFAULT 0");
    }

    @Override
    protected String anyOf(int count) {
        // MySQL has no array parameters: an IN list of the page's ids
        return " IN (" + "?, ".repeat(count - 1) + "?)";
    }

    @Override
    protected void bindIds(PreparedStatement statement, int index, List<?> ids, TableNames names) throws SQLException {
        for (int i = 0; i < ids.size(); i++) {
            bindId(statement, index + i, ids.get(i), names);
        }
    }

    /**
     * A text id column must compare in binary: a {@code _bin} collation or a binary string type. A
     * case- or accent-insensitive collation orders ids by language rules, which the engine's order of
     * ids cannot follow, and MariaDB's {@code UUID} type orders a time-based UUID by its time fields.
     */
    @Override
    protected List<String> textIdProblems(Connection connection, TaskDefinition task, TableNames names)
            throws SQLException {
        String schema = names.schema() == null ? connection.getCatalog() : names.schema();
        try (PreparedStatement statement = connection.prepareStatement("SELECT DATA_TYPE, COLUMN_TYPE,"
                + " CHARACTER_SET_NAME, COLLATION_NAME, IS_NULLABLE FROM information_schema.COLUMNS"
                + " WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME = ?")) {
            statement.setString(1, schema);
            statement.setString(2, names.table());
            statement.setString(3, names.id());
            try (ResultSet rs = statement.executeQuery()) {
                if (!rs.next()) {
                    return List.of();
                }
                String collation = rs.getString(4);
                boolean binary = collation == null
                        ? !rs.getString(1).equalsIgnoreCase("uuid")
                        : collation.toLowerCase(Locale.ROOT).endsWith("_bin") || collation.equalsIgnoreCase("binary");
                if (binary) {
                    return List.of();
                }
                String charset = rs.getString(3) == null ? "ascii" : rs.getString(3);
                String type = rs.getString(1).equalsIgnoreCase("uuid") ? "CHAR(36)" : rs.getString(2);
                return List.of("column " + names.id() + " (scan.tasks." + task.name() + ".id-column) is of type "
                        + rs.getString(2) + (collation == null ? "" : " with collation " + collation)
                        + ", which orders text ids by other rules than the scan's binary order: give it a binary"
                        + " collation, e.g. ALTER TABLE " + task.table() + " MODIFY "
                        + task.columns().id() + " " + type
                        + " CHARACTER SET " + charset + " COLLATE " + charset + "_bin"
                        + ("YES".equals(rs.getString(5)) ? "" : " NOT NULL"));
            }
        }
    }

    /** MySQL calls a database a catalog: a qualified name's schema is the catalog. */
    @Override
    protected boolean schemaIsCatalog() {
        return true;
    }

    /** Millisecond precision: a bare {@code DATETIME} drops the fraction. */
    @Override
    public String timestampType() {
        return "DATETIME(3)";
    }

    @Override
    protected String shareLock() {
        return " LOCK IN SHARE MODE";
    }

    @Override
    protected String insertUnlessPresent(String table, String columns, String values) {
        // not INSERT IGNORE: that would also turn a too long value into a silent truncation
        String firstColumn = columns.split(",")[0].trim();
        return "INSERT INTO " + table + " (" + columns + ") VALUES (" + values + ") ON DUPLICATE KEY UPDATE "
                + firstColumn + " = " + firstColumn;
    }

    /**
     * {@code INSERT IGNORE}: an ON DUPLICATE KEY UPDATE counts a present row as found, and an INSERT …
     * SELECT … WHERE NOT EXISTS takes gap locks that deadlock two nodes opening neighbouring rows.
     * Callers insert only values that fit their columns, so IGNORE truncates nothing.
     */
    @Override
    protected String insertCountingNew(String table, String columns, String values) {
        return "INSERT IGNORE INTO " + table + " (" + columns + ") VALUES (" + values + ")";
    }

    /**
     * Not an UPDATE, then an INSERT when there was no row: InnoDB's UPDATE of a missing row locks
     * the gap where it would be, which does not stop another transaction's UPDATE from locking it
     * too but does stop its INSERT, so two nodes writing a new row (a shard's first fence, an
     * endpoint's first ban), or two new rows in one gap, at once each wait for the other's gap: a
     * deadlock. This insert locks no gap first: it inserts, or on the present row waits for that
     * row's exclusive lock alone and updates it. Not {@code VALUES(column)}, which MySQL 8
     * deprecates: the updates bind their values again.
     */
    @Override
    protected String upsert(String table, String key, String columns, String values, String updates) {
        return "INSERT INTO " + table + " (" + columns + ") VALUES (" + values + ") ON DUPLICATE KEY UPDATE " + updates;
    }

    @Override
    protected String nowPlusMillis() {
        return "TIMESTAMPADD(MICROSECOND, ? * 1000, NOW(3))";
    }

    @Override
    protected String now() {
        return "NOW(3)";
    }

    /**
     * {@code NOW(3)} is in the session's zone, which the drivers leave at the server's, while a
     * {@code Timestamp} is read in the JVM's: {@code UNIX_TIMESTAMP} reads the column in the
     * session's zone, so the millisecond count is the instant whatever the two zones.
     */
    @Override
    protected String selectNow(String column) {
        return "ROUND(UNIX_TIMESTAMP(" + column + ") * 1000)";
    }

    @Override
    @Nullable
    protected Instant readNow(ResultSet rs, int index) throws SQLException {
        long millis = rs.getLong(index);
        return rs.wasNull() ? null : Instant.ofEpochMilli(millis);
    }

    /**
     * The database's UTC clock shifted by the JVM's offset, not {@code NOW(3)}: that is in the
     * session's zone, which the driver leaves at the server's, while it writes a {@code Timestamp}
     * as the zone-less value of the JVM's zone. On a server in UTC, a row that a JVM in Asia/Shanghai
     * wrote due in 15 minutes would otherwise run 8 hours and 15 minutes later.
     */
    @Override
    protected String dueBound(long delayMillis, ZoneOffset jvmOffset) {
        long shiftMillis = jvmOffset.getTotalSeconds() * 1000L - delayMillis;
        return shiftMillis == 0
                ? "UTC_TIMESTAMP(3)"
                : "TIMESTAMPADD(MICROSECOND, " + shiftMillis * 1000 + ", UTC_TIMESTAMP(3))";
    }

    /**
     * {@code UTC_TIMESTAMP(3)} whatever {@code zoned} says: MySQL and MariaDB hold no instants, and a
     * {@code TIMESTAMP} column takes and gives values in the session's zone, so it keeps the UTC value
     * the engine writes and compares as written.
     */
    @Override
    protected String rowClock(boolean zoned) {
        return "UTC_TIMESTAMP(3)";
    }

    @Override
    protected String rowClockMinus(boolean zoned, long millis) {
        return millis == 0 ? rowClock(zoned) : "TIMESTAMPADD(MICROSECOND, " + (-millis * 1000) + ", UTC_TIMESTAMP(3))";
    }

    /** The global zone, or the operating system's when it is {@code SYSTEM}. */
    @Override
    @Nullable
    protected String serverZone(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT @@global.time_zone, @@system_time_zone")) {
            if (!rs.next()) {
                return null;
            }
            String global = rs.getString(1);
            return global == null || global.equalsIgnoreCase("SYSTEM") ? rs.getString(2) : global;
        }
    }

    /**
     * {@code RTRIM}: MariaDB refuses a {@code CHAR} column in a generated column's expression (its
     * value depends on {@code PAD_CHAR_TO_FULL_LENGTH}) unless trimmed, and a CHAR value reaches Java
     * trimmed as well, as on PostgreSQL, whose {@code ::TEXT} trims a {@code CHAR} too. A VARCHAR key
     * that ends in spaces hashes without them, so its wake-ups name another shard than its rows' (the
     * rows are still fetched, at the tier's next poll).
     */
    @Override
    protected String textKeyHash(String key) {
        return "CAST(CONV(SUBSTRING(MD5(RTRIM(" + key + ")), 1, 8), 16, 10) AS UNSIGNED)";
    }

    @Override
    protected String generatedColumn(TaskDefinition task) {
        return "INT AS (" + shardOf(task, task.columns().shardKey()) + ") STORED";
    }

    @Override
    protected String redefineShardColumn(TaskDefinition task) {
        return "ALTER TABLE " + task.table() + " MODIFY COLUMN "
                + task.columns().shard() + " " + generatedColumn(task);
    }

    /** The same columns, generated columns and indexes, the primary key among them. */
    @Override
    protected List<String> archiveTableStatements(TaskDefinition task, String archiveTable) {
        return List.of("CREATE TABLE " + archiveTable + " LIKE " + task.table());
    }
}
