package io.shardscan.jdbc;

import io.shardscan.core.TaskDefinition;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * What differs between databases: quoting, the database's own clock, how a row finds its shard
 * and which index keeps that fetch a range scan. Stateless.
 */
public abstract sealed class SqlDialect permits PostgresDialect, GeneratedShardColumnDialect {

    /**
     * The dialect of the database behind {@code dataSource}.
     *
     * @throws IllegalStateException for a database other than PostgreSQL, MySQL, MariaDB or H2
     */
    public static SqlDialect detect(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            return forProduct(connection.getMetaData().getDatabaseProductName());
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot reach the database to detect its dialect: " + e.getMessage(), e);
        }
    }

    static SqlDialect forProduct(String product) {
        String name = product.toLowerCase(Locale.ROOT);
        if (name.contains("postgres")) {
            return new PostgresDialect();
        }
        if (name.contains("mysql") || name.contains("mariadb")) {
            return new MySqlDialect();
        }
        if (name.equals("h2")) {
            return new H2Dialect();
        }
        throw new IllegalStateException("Database '" + product + "' is not supported: Shardscan runs on PostgreSQL,"
                + " MySQL, MariaDB and H2");
    }

    /** The short name used in script names: {@code postgresql}, {@code mysql}, {@code h2}. */
    public abstract String name();

    /** The classpath location of the script that creates the lease, member and fence tables. */
    public String schemaLocation() {
        return "classpath:io/shardscan/jdbc/schema-" + name() + ".sql";
    }

    /** Quotes an identifier exactly as the database reports it. */
    String quote(String identifier) {
        return '"' + identifier + '"';
    }

    /**
     * The condition that matches any of {@code count} ids, after the column: one array parameter
     * here, so that a page's rows are marked done by one statement.
     */
    String anyOf(int count) {
        return " = ANY(?)";
    }

    /** Binds the ids that {@link #anyOf(int)} asks for, from parameter {@code index} on. */
    void bindIds(PreparedStatement statement, int index, List<Long> ids) throws SQLException {
        statement.setArray(index, statement.getConnection().createArrayOf("BIGINT", ids.toArray()));
    }

    /**
     * Whether an UPDATE may lock the fence row in its own sub-select, so that a page of done rows
     * is written and fenced by one statement without an explicit transaction.
     */
    boolean fencesInOneStatement() {
        return false;
    }

    /**
     * The clause that takes a shared row lock in a SELECT: write-backs of one owner share the fence
     * row, while a new owner's fence update waits for them to commit.
     */
    String shareLock() {
        return " FOR SHARE";
    }

    /** The database's current time plus the milliseconds bound to one parameter. */
    abstract String nowPlusMillis();

    /** The database's current time. */
    abstract String now();

    /**
     * The condition that selects one shard's rows, with one parameter for the shard, given the
     * table's resolved names; {@code shardColumn} is {@code null} when the table has none.
     */
    String shardCondition(TaskDefinition task, TableNames names) {
        if (names.shardColumn() != null) {
            return quote(names.shardColumn()) + " = ?";
        }
        return "MOD(" + quote(names.shardKey()) + ", " + task.shards() + ") = ?";
    }

    /** Whether the index that keeps the pending-row fetch a range scan exists. */
    abstract boolean hasScanIndex(DatabaseMetaData metaData, TaskDefinition task, TableNames names) throws SQLException;

    /** The statements that create that index, and the column it needs, as a user would run them. */
    abstract List<String> scanIndexStatements(TaskDefinition task);

    /** The index's name for a table, e.g. {@code tb_order_scan_idx}. */
    static String indexName(TaskDefinition task) {
        return bareTable(task) + "_scan_idx";
    }

    /** Whether the task fetches failed rows at all: any tier above 0 retries. */
    static boolean hasRetryTiers(TaskDefinition task) {
        return task.tiers().stream().anyMatch(tier -> tier.maxRetries() > 0);
    }

    /** The name of the index over failed pending rows, e.g. {@code tb_order_retry_idx}. */
    static String retryIndexName(TaskDefinition task) {
        return bareTable(task) + "_retry_idx";
    }

    private static String bareTable(TaskDefinition task) {
        return task.table().substring(task.table().indexOf('.') + 1);
    }
}
