package io.shardscan.jdbc;

import io.shardscan.core.task.KeyType;
import io.shardscan.core.task.TaskDefinition;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.jdbc.DatabaseDriver;

/**
 * What differs between databases: quoting, the database's own clock, how a row finds its shard,
 * which index keeps that fetch a range scan, and the clauses each spells its own way (a limit, a
 * shared row lock, an upsert). One subclass per database: PostgreSQL, MySQL and MariaDB, H2 ship
 * with Shardscan and {@link #detect} finds them from the database's product name as Spring Boot's
 * {@link DatabaseDriver} reads it; an application on another database defines its own subclass as a
 * bean, which the auto-configuration uses instead of detecting one.
 *
 * <p>A subclass implements the abstract hooks ({@link #name()}, the clock, the text key hash, the
 * scan, archive and archive-table DDL and their checks); every other protected hook has a default
 * in PostgreSQL's spelling, which is standard SQL where there is one, and a subclass overrides it
 * where its database differs. Hooks return SQL fragments that the stores paste into their
 * statements: identifiers come quoted by {@link #quote}, values are bind parameters unless a hook
 * says that it writes a literal. A few hooks take types of this package that stay internal
 * ({@code checkShards}, {@code columnType}, {@code addColumnStatement}): their defaults serve every
 * database with standard DDL. Stateless: one instance serves every store of an application from any
 * thread, and a subclass must be so too.
 */
public abstract class SqlDialect {

    /**
     * The dialect of the database behind {@code dataSource}, found from its product name ({@link
     * DatabaseMetaData#getDatabaseProductName()}) as {@link DatabaseDriver#fromProductName} reads it;
     * needs {@code spring-boot-jdbc} on the class path, as every Spring Boot JDBC application has.
     *
     * @throws IllegalStateException when the database cannot be reached, or is one Shardscan ships no
     *     dialect for (see {@link #forDriver})
     */
    public static SqlDialect detect(DataSource dataSource) {
        String product;
        try (Connection connection = dataSource.getConnection()) {
            product = connection.getMetaData().getDatabaseProductName();
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot reach the database to detect its dialect: " + e.getMessage(), e);
        }
        return forProduct(product);
    }

    /** The dialect of the database whose metadata names it {@code product}. */
    static SqlDialect forProduct(String product) {
        SqlDialect dialect = forDriver(DatabaseDriver.fromProductName(product));
        if (dialect == null) {
            throw new IllegalStateException("Database '" + product + "' is not supported: Shardscan runs on"
                    + " PostgreSQL, MySQL, MariaDB and H2; for another database, define a bean of a SqlDialect"
                    + " subclass of your own (io.shardscan.jdbc.SqlDialect)");
        }
        return dialect;
    }

    /**
     * The dialect Shardscan ships for {@code driver}: a new database's dialect adds its case here.
     * An application whose database reports a product name Spring Boot does not know, but speaks
     * one of these, defines a bean of {@code SqlDialect.forDriver(DatabaseDriver.POSTGRESQL)}, say.
     *
     * @return {@code null} for a database without a dialect of Shardscan's
     */
    public static @Nullable SqlDialect forDriver(DatabaseDriver driver) {
        return switch (driver) {
            case POSTGRESQL -> new PostgresDialect();
            case MYSQL, MARIADB -> new MySqlDialect();
            case H2 -> new H2Dialect();
            default -> null;
        };
    }

    /**
     * The database's short name, in lower case: {@code postgresql}, {@code mysql}, {@code h2}, as
     * {@link DatabaseDriver#getId()} spells it; also the default {@link #migrationFolder()}.
     */
    public abstract String name();

    /**
     * {@code expression} as {@link io.shardscan.core.spi.FailureGroup#keyOf} makes an error its group's key,
     * so that errors naming a row's id or a count group together.
     */
    String failureGroupKey(String expression) {
        String key = expression;
        for (String part : io.shardscan.core.spi.FailureGroup.VARYING_PARTS) {
            key = replaceAll(key, part);
        }
        return key;
    }

    /** {@code expression} with every match of {@code pattern} replaced by {@code #}: every one, on H2, MySQL 8 and MariaDB. */
    protected String replaceAll(String expression, String pattern) {
        return "REGEXP_REPLACE(" + expression + ", '" + pattern + "', '#')";
    }

    /**
     * Whether {@code e} is a statement cancelled by its timeout ({@code Statement.cancel} once past it,
     * see {@link StatementDeadlines}, or {@code Statement.setQueryTimeout}): here a {@link
     * java.sql.SQLTimeoutException}, as H2's and MariaDB's drivers throw.
     */
    protected boolean cancelledByTimeout(SQLException e) {
        return e instanceof java.sql.SQLTimeoutException;
    }

    /** The folder under {@link OwnSchema#LOCATION} of the scripts that create Shardscan's own tables here. */
    public String migrationFolder() {
        return name();
    }

    /** Quotes an identifier exactly as the database reports it. */
    protected String quote(String identifier) {
        return '"' + identifier + '"';
    }

    /**
     * The condition that matches any of {@code count} ids, after the column: one array parameter
     * here, so that a page's rows are marked done by one statement.
     */
    protected String anyOf(int count) {
        return " = ANY(?)";
    }

    /**
     * Binds the ids that {@link #anyOf(int)} asks for, from parameter {@code index} on: {@code Long}s, or
     * the text of text or UUID ids ({@link io.shardscan.core.task.Row#idValue()}).
     */
    protected void bindIds(PreparedStatement statement, int index, List<?> ids, TableNames names) throws SQLException {
        String type = ids.isEmpty() || ids.get(0) instanceof Long ? "BIGINT" : names.idUuid() ? "UUID" : "VARCHAR";
        Object[] values = new Object[ids.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = idValue(ids.get(i), names);
        }
        statement.setArray(index, statement.getConnection().createArrayOf(type, values));
    }

    /** Binds one id, a {@code Long} or the text of a text or UUID id, at {@code index}. */
    protected void bindId(PreparedStatement statement, int index, Object id, TableNames names) throws SQLException {
        if (id instanceof Long value) {
            statement.setLong(index, value);
        } else {
            statement.setObject(index, idValue(id, names));
        }
    }

    /** An id as the driver binds it: a UUID column's as a {@code UUID}, any other as given. */
    protected static Object idValue(Object id, TableNames names) {
        if (!(id instanceof String text) || !names.idUuid()) {
            return id;
        }
        try {
            return UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Row id '" + text + "' is not an id of table " + names.table()
                    + ": its ids are the UUIDs of column " + names.id() + ", e.g. \"029142e0-db35-4b52-aa68-"
                    + "0133609ef41f\"");
        }
    }

    /**
     * Why a text or UUID id column cannot be paged in the engine's order of ids (see {@link #keysetId}),
     * with the fix; empty when it can, as here.
     */
    protected List<String> textIdProblems(Connection connection, TaskDefinition task, TableNames names)
            throws SQLException {
        return List.of();
    }

    /**
     * The id column as the keyset orders and compares it, quoted: a text id in binary order, the order
     * the engine compares ids in ({@link io.shardscan.core.task.KeyType#TEXT}). Here the column as it is: H2
     * compares text so, and MySQL's text id column must have a binary collation (its startup check).
     */
    protected String keysetId(TaskDefinition task, TableNames names) {
        return quote(names.id());
    }

    /**
     * {@code select} limited to its first {@code rows} rows, those its ORDER BY, when it has one, puts
     * first: {@code rows} is a bind parameter ({@code ?}) or a whole-number literal, and the result
     * binds the same parameters in the same order. A clause the caller adds after it (a row lock)
     * follows the result. Here {@code select LIMIT rows}, as PostgreSQL, MySQL, MariaDB and H2 spell
     * it; a database without {@code LIMIT} writes {@code FETCH FIRST} or {@code TOP}.
     */
    protected String limit(String select, String rows) {
        return select + " LIMIT " + rows;
    }

    /**
     * As {@link #limit(String, String)}, after the first {@code offset} rows, a literal; for 0, the
     * same as without. Here {@code select LIMIT rows OFFSET offset}.
     */
    protected String limit(String select, String rows, long offset) {
        return offset == 0 ? limit(select, rows) : limit(select, rows) + " OFFSET " + offset;
    }

    /**
     * Whether JDBC's metadata calls a schema a catalog: MySQL's and MariaDB's, where {@code db.table}
     * names a database, which {@link DatabaseMetaData} takes and reports as the catalog, and no
     * schema. Then a table's qualifier is looked up as the catalog, and the metadata names no schema
     * for its columns. Here false: the qualifier is the schema, in the connection's catalog.
     */
    protected boolean schemaIsCatalog() {
        return false;
    }

    /**
     * The DDL type of a timestamp column without time zone, to the millisecond at least: the type of
     * Shardscan's own timestamp columns (its migration scripts write the same), and of the columns
     * that the startup checks ask a user to add. Here {@code TIMESTAMP}.
     */
    public String timestampType() {
        return "TIMESTAMP";
    }

    /**
     * Whether a row's shard lives in a generated column of the table ({@code shard-column}), which
     * the fetch compares and its index holds, rather than in the expression {@link #shardOf} that
     * every statement computes and an expression index holds: for a database that cannot index an
     * expression over only the pending rows. Here false: a shard column the table may have is ignored.
     */
    protected boolean generatesShardColumn() {
        return false;
    }

    /**
     * Whether an UPDATE may lock the fence row in its own sub-select, so that a page of done rows
     * is written and fenced by one statement without an explicit transaction.
     */
    protected boolean fencesInOneStatement() {
        return false;
    }

    /**
     * One statement that inserts a row into {@code table}, or updates the row with the same
     * primary key: {@code INSERT INTO table (columns) VALUES (values)}, then on a present row
     * {@code SET updates}, whose expressions name that row's columns qualified by the table
     * ({@code scan_fence.epoch + 1}). Its parameters are those of {@code values}, then those of
     * {@code updates}. Where an UPDATE of a missing row locks the gap where it would be (InnoDB),
     * two nodes writing new rows at once by an UPDATE, then an INSERT, deadlock; this does not.
     *
     * @param key the primary key's columns, comma separated
     * @return {@code null} when the UPDATE, then the INSERT, locks no gap (PostgreSQL, H2): then
     *     the caller runs them, and its transaction once more when a duplicate key tells that
     *     another node inserted the row meanwhile
     */
    @Nullable
    protected String upsert(String table, String key, String columns, String values, String updates) {
        return null;
    }

    /**
     * The clause that takes a shared row lock in a SELECT: write-backs of one owner share the fence
     * row, while a new owner's fence update waits for them to commit.
     */
    protected String shareLock() {
        return " FOR SHARE";
    }

    /**
     * Whether a SELECT may start with {@code WITH name AS (UPDATE … RETURNING …)}, so that several
     * changes and reads are one statement (PostgreSQL's data-modifying {@code WITH}).
     */
    protected boolean updatesInWith() {
        return false;
    }

    /**
     * An {@code INSERT INTO table (columns) VALUES (values)} that inserts nothing, without an
     * error, when a row with the same primary key exists: two nodes claiming a shard's first lease
     * at the same moment must not make the driver log a duplicate key (MariaDB's logs a WARN).
     */
    protected String insertUnlessPresent(String table, String columns, String values) {
        return "INSERT INTO " + table + " (" + columns + ") VALUES (" + values + ") ON CONFLICT DO NOTHING";
    }

    /**
     * An insert as {@link #insertUnlessPresent} whose update count tells whether it inserted: 1 for a
     * new row, 0 (or a duplicate key exception) for a present one.
     */
    protected String insertCountingNew(String table, String columns, String values) {
        return insertUnlessPresent(table, columns, values);
    }

    /** The database's current time plus the milliseconds bound to one parameter. */
    protected abstract String nowPlusMillis();

    /** The database's current time. */
    protected abstract String now();

    /**
     * The database's clock as the engine stamps a row's last update with it: for a zone-less column
     * ({@code zoned} false) the current time in UTC, whatever the JVM's or the session's zone, so that
     * nodes in different zones agree; for a column that holds instants, the current instant. The fetch
     * of failed rows, the archive's cutoff and the backlog's ages compare with the same expression, so
     * no node's clock ever takes part in a row's rest.
     */
    protected String rowClock(boolean zoned) {
        return zoned ? "CURRENT_TIMESTAMP" : "(CURRENT_TIMESTAMP AT TIME ZONE 'UTC')";
    }

    /** {@link #rowClock} less {@code millis}, a validated number written as a literal, without parameters. */
    protected String rowClockMinus(boolean zoned, long millis) {
        return millis == 0 ? rowClock(zoned) : "(" + rowClock(zoned) + " - INTERVAL '" + millis + " milliseconds')";
    }

    /**
     * Reads an instant that {@link #rowClock} stamped (or a value compared with it): a zone-less
     * one as UTC; {@code null} when the column is.
     */
    @Nullable
    protected Instant readRowTime(ResultSet rs, int index, boolean zoned) throws SQLException {
        if (zoned) {
            OffsetDateTime value = rs.getObject(index, OffsetDateTime.class);
            return value == null ? null : value.toInstant();
        }
        LocalDateTime value = rs.getObject(index, LocalDateTime.class);
        return value == null ? null : value.toInstant(ZoneOffset.UTC);
    }

    /**
     * {@code column}, written by {@link #now()} or {@link #nowPlusMillis()}, as a select list item
     * that {@link #readNow} reads as the instant it is: the column itself where {@link #now()} is in
     * the JVM's zone ({@link #sessionInJvmZone}).
     */
    protected String selectNow(String column) {
        return column;
    }

    /** Reads a {@link #selectNow} item; {@code null} when the column is. */
    @Nullable
    protected Instant readNow(ResultSet rs, int index) throws SQLException {
        Timestamp value = rs.getTimestamp(index);
        return value == null ? null : value.toInstant();
    }

    /**
     * The time zone the database gives a session whose client sets none: the zone that psql,
     * triggers and other services write zone-less timestamps in.
     *
     * @return its name as the database spells it; {@code null} when the database runs in the JVM
     *     (H2) or it cannot tell
     */
    @Nullable
    protected String serverZone(Connection connection) throws SQLException {
        return null;
    }

    /**
     * Whether the driver sets the session's zone to the JVM's (PgJDBC), so that {@link #now()} is
     * zone-less in the JVM's zone, rather than in the database's (MariaDB's and MySQL's drivers).
     */
    protected boolean sessionInJvmZone() {
        return false;
    }

    /**
     * The database's current time less {@code delayMillis}, as a zone-less value in the zone whose
     * offset from UTC is {@code jvmOffset}, without parameters: a row whose due-at column is at or
     * before it is due, and a finished row whose updated-at column is at or before it (less the
     * archive's {@code after}) is archived. The driver writes and reads zone-less values in the
     * JVM's zone, so these checks read the database's clock in it too; {@link #now()} is in it already on PostgreSQL
     * (PgJDBC sets the session's zone to the JVM's) and H2 (it runs in the JVM). The delay is a
     * validated number, written as a literal.
     */
    protected String dueBound(long delayMillis, ZoneOffset jvmOffset) {
        return delayMillis == 0 ? now() : nowPlusMillis().replace("?", "(" + (-delayMillis) + ")");
    }

    /**
     * The JVM's offset from UTC at this moment: the zone in which the driver writes and reads
     * zone-less timestamps, which a statement built with {@link #dueBound} holds as a literal.
     */
    static ZoneOffset jvmOffset() {
        return ZoneId.systemDefault().getRules().getOffset(Instant.now());
    }

    /**
     * The keyset condition "after this due time and id", in the due index's order, with the
     * parameters {@link #bindAfter} binds. PostgreSQL reads a row comparison as one index range.
     */
    protected String after(String due, String id) {
        return "(" + due + ", " + id + ") > (?, ?)";
    }

    /** Binds the parameters of {@link #after} from {@code index} on; returns the next index. */
    protected int bindAfter(PreparedStatement statement, int index, Timestamp due, Object id, TableNames names)
            throws SQLException {
        statement.setTimestamp(index, due);
        bindId(statement, index + 1, id, names);
        return index + 2;
    }

    /**
     * The condition that selects one shard's rows, with one parameter for the shard, given the
     * table's resolved names; {@code shardColumn} is {@code null} when the table has none.
     */
    protected String shardCondition(TaskDefinition task, TableNames names) {
        return shardExpression(task, names) + " = ?";
    }

    /** A row's shard, as the index has it; {@code NULL} for a row whose shard key is NULL. */
    protected String shardExpression(TaskDefinition task, TableNames names) {
        if (names.shardColumn() != null) {
            return quote(names.shardColumn());
        }
        return shardOf(task, quote(names.shardKey()));
    }

    /**
     * A row's shard computed from its shard key {@code key} (a column or an expression), as Java
     * computes it: {@link SchemaDdl#shardOf} for a whole-number key, the hash of {@link
     * io.shardscan.core.task.TextKeys} for a text or UUID key.
     */
    protected String shardOf(TaskDefinition task, String key) {
        return task.columns().shardKeyType() == KeyType.TEXT
                ? "MOD(" + textKeyHash(key) + ", " + task.shards() + ")"
                : SchemaDdl.shardOf(key, task.shards());
    }

    /**
     * The first four bytes of the MD5 of {@code key}'s text, as an unsigned number (see {@link
     * io.shardscan.core.task.TextKeys}); an expression the database can index (PostgreSQL) or store in a
     * generated column (MySQL, H2).
     */
    protected abstract String textKeyHash(String key);

    /**
     * The statements that replace what a version before {@link #shardOf} left keyed by a plain
     * {@code MOD(key, N)}, which puts a row with a negative key in a negative shard that no node
     * fetches; empty when nothing of that kind is there.
     */
    protected List<String> outdatedShardStatements(DatabaseMetaData metaData, TaskDefinition task, TableNames names)
            throws SQLException {
        return List.of();
    }

    /**
     * Whether the table gives the task's pending rows the shards 0..N-1 its fetches read: here, a
     * warning with the {@link #outdatedShardStatements} when there are any; with a generated shard
     * column, what {@link ShardColumnCheck} finds.
     */
    ShardColumnCheck.Found checkShards(Connection connection, TaskDefinition task, TableNames names)
            throws SQLException {
        List<String> outdated = outdatedShardStatements(connection.getMetaData(), task, names);
        return outdated.isEmpty()
                ? ShardColumnCheck.Found.NOTHING
                : ShardColumnCheck.Found.warning(ShardColumnCheck.plainModWarning(task, outdated));
    }

    /**
     * The statements that make a task's retry column NOT NULL DEFAULT 0, as a user would run them:
     * its NULL rows given 0 first, or the constraint would fail on them.
     *
     * @param type the column's type as the metadata names it
     */
    protected List<String> retryColumnNotNull(TaskDefinition task, String type) {
        String alter = "ALTER TABLE " + task.table() + " ALTER COLUMN "
                + task.columns().retry();
        return List.of(nullRetriesToZero(task), alter + " SET DEFAULT 0", alter + " SET NOT NULL");
    }

    /** The {@code UPDATE} that gives the rows whose retry count is NULL a count of 0. */
    protected static String nullRetriesToZero(TaskDefinition task) {
        return "UPDATE " + task.table() + " SET " + task.columns().retry() + " = 0 WHERE "
                + task.columns().retry() + " IS NULL";
    }

    /**
     * The statements that drop indexes of the table which carry the names {@link #scanIndexStatements}
     * gives but are not the ones it creates: left by an earlier configuration (another shard key, id or
     * shard count), they would make its {@code CREATE INDEX} fail with "already exists". Called only
     * when {@link #hasScanIndex} found the index missing; here none.
     */
    protected List<String> staleIndexStatements(DatabaseMetaData metaData, TaskDefinition task, TableNames names)
            throws SQLException {
        return List.of();
    }

    /** Whether the index that keeps the pending-row fetch a range scan exists. */
    protected abstract boolean hasScanIndex(DatabaseMetaData metaData, TaskDefinition task, TableNames names)
            throws SQLException;

    /**
     * The statements that create that index (or indexes), as a user would run them, named by {@link
     * SchemaDdl#indexName}; the task's match comes from {@code names}, its conditions as {@link
     * MatchSql#ddl()} writes them. The shard column an index may need comes from {@link
     * #shardColumnStatements}, before these.
     */
    protected abstract List<String> scanIndexStatements(TaskDefinition task, TableNames names);

    /**
     * The statements that add the shard column the scan index needs, where the shard lives in a
     * generated column ({@link #generatesShardColumn}), as a user would run them; here none.
     */
    protected List<String> shardColumnStatements(TaskDefinition task) {
        return List.of();
    }

    /**
     * Whether the index exists through which an archive batch reads one shard's finished rows by
     * their last update, so that it reads only rows it moves.
     */
    protected abstract boolean hasArchiveIndex(DatabaseMetaData metaData, TaskDefinition task, TableNames names)
            throws SQLException;

    /** The statements that create that index, as a user would run them; the task's match comes from {@code names}. */
    protected abstract List<String> archiveIndexStatements(TaskDefinition task, TableNames names);

    /** The statements that create an archive table with the scanned table's columns and primary key. */
    protected abstract List<String> archiveTableStatements(TaskDefinition task, String archiveTable);

    /** The statements that give {@code table} a primary key on {@code idColumn}. */
    protected List<String> addPrimaryKeyStatements(String table, String idColumn) {
        return List.of("ALTER TABLE " + table + " ADD PRIMARY KEY (" + idColumn + ")");
    }

    /** The statement that adds a column of {@code column}'s type to {@code table}; nullable, so it works on rows already there. */
    String addColumnStatement(String table, TableInspector.ColumnInfo column) {
        return "ALTER TABLE " + table + " ADD COLUMN " + column.name() + " " + columnType(column);
    }

    /** A column's type as DDL writes it, from its metadata: the type's name with its length, precision or fraction. */
    String columnType(TableInspector.ColumnInfo column) {
        String name = column.typeName();
        String unsigned = "";
        if (name.toUpperCase(Locale.ROOT).endsWith(" UNSIGNED")) {
            unsigned = name.substring(name.length() - " UNSIGNED".length());
            name = name.substring(0, name.length() - unsigned.length());
        }
        String size =
                switch (column.jdbcType()) {
                    case Types.VARCHAR, Types.CHAR, Types.NVARCHAR, Types.NCHAR ->
                        column.size() > 0 && column.size() < 1_000_000 ? "(" + column.size() + ")" : "";
                    case Types.NUMERIC, Types.DECIMAL ->
                        column.size() > 0 && column.size() < 1000
                                ? "(" + column.size()
                                        + (column.decimalDigits() > 0 ? ", " + column.decimalDigits() : "") + ")"
                                : "";
                    case Types.TIMESTAMP, Types.TIMESTAMP_WITH_TIMEZONE ->
                        column.decimalDigits() > 0 ? "(" + column.decimalDigits() + ")" : "";
                    default -> "";
                };
        return name + size + unsigned;
    }
}
