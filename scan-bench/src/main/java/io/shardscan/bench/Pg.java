package io.shardscan.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.jdbc.OwnSchema;
import io.shardscan.jdbc.SchemaDdl;
import io.shardscan.jdbc.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/**
 * The benchmark's PostgreSQL: one pool, and the DDL of the benchmark's own tables. Every table it
 * touches is named {@code bench_*} (plus Shardscan's {@code scan_*} coordination tables, whose rows
 * of {@code bench-*} tasks are cleared); nothing else in the database is read or written.
 */
public final class Pg implements AutoCloseable {

    /** The scanned table. */
    public static final String TABLE = "bench_task";

    /** The logical shards of every benchmark task. */
    public static final int SHARDS = 64;

    private final String url;
    private final HikariDataSource dataSource;
    private final JdbcTemplate jdbc;

    /**
     * Opens a pool.
     *
     * @param url a JDBC URL, the user as a URL parameter, e.g. {@code jdbc:postgresql://host/db?user=postgres}
     * @param poolSize the most connections
     */
    public Pg(String url, int poolSize) {
        this.url = url;
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(poolSize);
        config.setPoolName("bench-pg");
        config.addDataSourceProperty("reWriteBatchedInserts", "true");
        this.dataSource = new HikariDataSource(config);
        this.jdbc = new JdbcTemplate(dataSource);
    }

    /**
     * The URL of {@code database} on the server of {@code serverUrl}, the database created when missing.
     *
     * @param serverUrl a JDBC URL of any database on the server, as {@link #Pg(String, int)} takes
     */
    public static String database(String serverUrl, String database) {
        try (Pg admin = new Pg(serverUrl, 1)) {
            Boolean exists = admin.jdbc()
                    .queryForObject(
                            "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = ?)", Boolean.class, database);
            if (!Boolean.TRUE.equals(exists)) {
                admin.execute("CREATE DATABASE " + database);
            }
        }
        return serverUrl.replaceFirst("^(jdbc:postgresql://[^/]+/)[^?]*", "$1" + database);
    }

    public String url() {
        return url;
    }

    public DataSource dataSource() {
        return dataSource;
    }

    public JdbcTemplate jdbc() {
        return jdbc;
    }

    /**
     * Drops and fills {@code bench_task} with {@code rows} pending rows (ids 1..rows, shard key
     * {@code id % keys}), due an hour ago, then adds the primary key and the two partial scan indexes of docs/guides/table-and-indexes.md.
     */
    public void recreateTaskTable(long rows, long keys) {
        jdbc.execute("DROP TABLE IF EXISTS " + TABLE);
        jdbc.execute("CREATE TABLE " + TABLE + " (id BIGINT NOT NULL, shard_key BIGINT NOT NULL,"
                + " status SMALLINT NOT NULL DEFAULT 0, retry_count INT NOT NULL DEFAULT 0,"
                + " updated_at TIMESTAMP NOT NULL, last_error VARCHAR(512))");
        jdbc.update(
                "INSERT INTO " + TABLE + " (id, shard_key, updated_at) SELECT g, g % ?,"
                        + " LOCALTIMESTAMP - INTERVAL '1 hour' FROM generate_series(1, ?) g",
                Math.max(1, keys),
                rows);
        jdbc.execute("ALTER TABLE " + TABLE + " ADD PRIMARY KEY (id)");
        // bench_task_scan_idx and bench_task_retry_idx, as the startup check prints them
        SchemaDdl.scanIndexStatements(
                        SqlDialect.detect(dataSource),
                        TaskDefinition.builder("bench")
                                .table(TABLE)
                                .idColumn("id")
                                .shardKeyColumn("shard_key")
                                .shards(SHARDS)
                                .build())
                .forEach(jdbc::execute);
        jdbc.execute("VACUUM ANALYZE " + TABLE);
        coordinationTables();
    }

    /**
     * Keeps background work out of a timed run on {@code bench_task}: turns autovacuum off for the
     * table (it was just vacuumed) and writes a checkpoint, so that neither the table's autovacuum
     * nor the checkpoint that its fill would trigger lands inside the measurement of one system
     * and not the other's.
     */
    public void quiesce() {
        jdbc.execute("ALTER TABLE " + TABLE + " SET (autovacuum_enabled = false)");
        jdbc.execute("CHECKPOINT");
    }

    /** Rows of {@code bench_task} matching a condition. */
    public long count(String where) {
        Long n = jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE + " WHERE " + where, Long.class);
        return n == null ? 0 : n;
    }

    /**
     * Creates Shardscan's coordination tables if missing (the write-back's fence lives in {@code
     * scan_fence} whatever the coordinator) and forgets the rows of the {@code bench-*} tasks.
     */
    public void coordinationTables() {
        ResourceDatabasePopulator populator = new ResourceDatabasePopulator();
        OwnSchema.scriptLocations(SqlDialect.detect(dataSource))
                .forEach(location -> populator.addScript(new DefaultResourceLoader().getResource(location)));
        populator.execute(dataSource);
        for (String table : new String[] {
            "scan_lease",
            "scan_member",
            "scan_fence",
            "scan_task",
            "scan_range_cursor",
            "scan_range",
            "scan_range_failure"
        }) {
            jdbc.update("DELETE FROM " + table + " WHERE task LIKE 'bench-%'");
        }
    }

    /** Runs a statement outside any transaction, e.g. {@code VACUUM}. */
    public void execute(String sql) {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /**
     * Drops and fills {@code bench_user} with {@code rows} users (ids 1..rows, no status column), then
     * adds the primary key, the only index a range task needs.
     */
    public void recreateUserTable(long rows) {
        jdbc.execute("DROP TABLE IF EXISTS " + RangeJobs.TABLE);
        jdbc.execute("CREATE TABLE " + RangeJobs.TABLE + " (id BIGINT NOT NULL, email VARCHAR(64) NOT NULL)");
        jdbc.update(
                "INSERT INTO " + RangeJobs.TABLE + " (id, email) SELECT g, 'user' || g || '@example.com'"
                        + " FROM generate_series(1, ?) g",
                rows);
        jdbc.execute("ALTER TABLE " + RangeJobs.TABLE + " ADD PRIMARY KEY (id)");
        jdbc.execute("VACUUM ANALYZE " + RangeJobs.TABLE);
        coordinationTables();
    }

    /** Drops the benchmark's tables. */
    public void dropAll() {
        jdbc.execute("DROP TABLE IF EXISTS " + TABLE);
        jdbc.execute("DROP TABLE IF EXISTS " + RangeJobs.TABLE);
        jdbc.execute("DROP TABLE IF EXISTS " + DbSchedulerRun.TABLE);
    }

    @Override
    public void close() {
        dataSource.close();
    }
}
