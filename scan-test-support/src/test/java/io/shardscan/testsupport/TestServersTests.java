package io.shardscan.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

@ServerTests
class TestServersTests {

    @Test
    void postgresAnswersQueriesAndGivesEachTestClassItsOwnDatabase() throws SQLException {
        assertThat(query(TestServers.postgres(), "select 1")).isEqualTo("1");
        assertThat(query(TestServers.postgres(), "select version()")).startsWith("PostgreSQL");

        DataSource own = TestServers.postgresDatabase("servers_pg");
        assertThat(query(own, "select current_database()")).isEqualTo("servers_pg");
        assertThat(TestServers.postgresDatabase("servers_pg")).isSameAs(own);
        assertThat(TestServers.postgresEndpoint("servers_pg").url()).endsWith("/servers_pg");
    }

    @Test
    void mariadbAnswersQueriesAndGivesEachTestClassItsOwnDatabase() throws SQLException {
        assertThat(query(TestServers.mariadb(), "select version()")).contains("MariaDB");
        assertThat(query(TestServers.mariadb(), "select database()")).isEqualTo("test");

        DataSource own = TestServers.mariadbDatabase("servers_maria");
        assertThat(query(own, "select database()")).isEqualTo("servers_maria");
        assertThat(TestServers.mariadbDatabase("servers_maria")).isSameAs(own);
    }

    @Test
    void h2DatabasesAreSharedByName() throws SQLException {
        try (Connection connection = TestServers.h2("servers_h2").getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("create table marker (id int)");
        }
        assertThat(query(TestServers.h2("servers_h2"), "select count(*) from marker"))
                .isEqualTo("0");
        assertThat(query(TestServers.h2("servers_h2_other"), "select 1")).isEqualTo("1");
        assertThatThrownBy(() -> query(TestServers.h2("servers_h2_other"), "select count(*) from marker"))
                .isInstanceOf(SQLException.class);
    }

    @Test
    void databaseNamesAreValidated() {
        assertThatThrownBy(() -> TestServers.postgresDatabase("Bad-Name")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TestServers.mariadbDatabase("x; drop")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TestServers.h2("1abc")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void jdbcUrlsCarryCredentialsAsParameters() {
        JdbcEndpoint endpoint = JdbcEndpoint.parse(
                "jdbc:postgresql://127.0.0.1:5433/test?user=scan&password=s%26t&ssl=false", "postgres");
        assertThat(endpoint)
                .isEqualTo(new JdbcEndpoint("jdbc:postgresql://127.0.0.1:5433/test?ssl=false", "scan", "s&t"));
        assertThat(endpoint.withDatabase("other").url()).isEqualTo("jdbc:postgresql://127.0.0.1:5433/other?ssl=false");
        assertThat(JdbcEndpoint.parse(endpoint.urlWithCredentials(), "postgres"))
                .isEqualTo(endpoint);
        assertThat(new JdbcEndpoint("jdbc:postgresql://127.0.0.1:5433/test", "postgres", "").urlWithCredentials())
                .isEqualTo("jdbc:postgresql://127.0.0.1:5433/test?user=postgres");
        assertThat(JdbcEndpoint.parse("jdbc:mariadb://127.0.0.1:3307", "root").withDatabase("test"))
                .isEqualTo(new JdbcEndpoint("jdbc:mariadb://127.0.0.1:3307/test", "root", ""));
    }

    @Test
    void redisAnswersPingAndCanBeRestartedOnTheSamePort() throws IOException {
        RedisServerHandle redis = TestServers.redis();
        assertThat(TestServers.redisUrl()).isEqualTo(redis.url());
        assertThat(ping(redis)).isEqualTo("+PONG");
        assertThat(redis.version()).as("INFO server's redis_version").matches("\\d+\\.\\d+\\.\\d+");

        assumeThat(redis.isManaged()).as("Redis started by the tests").isTrue();
        redis.stop();
        assertThatThrownBy(() -> ping(redis)).isInstanceOf(IOException.class);
        redis.start();
        assertThat(ping(redis)).isEqualTo("+PONG");
    }

    private static String query(DataSource dataSource, String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            assertThat(rows.next()).isTrue();
            return rows.getString(1);
        }
    }

    private static String ping(RedisServerHandle redis) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(redis.host(), redis.port()), 2_000);
            socket.setSoTimeout(2_000);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
                    .readLine();
        }
    }
}
