package io.shardscan.testsupport;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Connection details of a test database: a JDBC URL without credentials, plus user and password.
 * Tests that launch child JVMs pass these three values on; tests in this JVM normally use the
 * pooled {@code DataSource}s of {@link TestServers} instead.
 *
 * @param url the JDBC URL, without {@code user}/{@code password} parameters
 * @param user the database user
 * @param password the password, empty for none
 */
public record JdbcEndpoint(String url, String user, String password) {

    private static final Pattern SERVER_URL = Pattern.compile("^(jdbc:[a-z0-9]+://[^/?;]+)(/[^?;]*)?([?;].*)?$");

    /** Validates that no component is {@code null}. */
    public JdbcEndpoint {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(password, "password");
    }

    /**
     * Parses a JDBC URL whose {@code user} and {@code password} query parameters, if any, become the
     * credentials of the endpoint; all other parameters stay in the URL.
     *
     * @param jdbcUrl the URL, e.g. {@code jdbc:postgresql://127.0.0.1:5432/test?user=postgres}
     * @param defaultUser the user when the URL names none
     * @return the endpoint
     */
    public static JdbcEndpoint parse(String jdbcUrl, String defaultUser) {
        int query = jdbcUrl.indexOf('?');
        if (query < 0) {
            return new JdbcEndpoint(jdbcUrl, defaultUser, "");
        }
        String user = defaultUser;
        String password = "";
        List<String> kept = new ArrayList<>();
        for (String param : jdbcUrl.substring(query + 1).split("&")) {
            if (param.startsWith("user=")) {
                user = URLDecoder.decode(param.substring(5), StandardCharsets.UTF_8);
            } else if (param.startsWith("password=")) {
                password = URLDecoder.decode(param.substring(9), StandardCharsets.UTF_8);
            } else if (!param.isEmpty()) {
                kept.add(param);
            }
        }
        String base = jdbcUrl.substring(0, query);
        return new JdbcEndpoint(kept.isEmpty() ? base : base + "?" + String.join("&", kept), user, password);
    }

    /**
     * Returns the URL with the user and, when there is one, the password as query parameters: the
     * inverse of {@link #parse}, for a client that takes one string (the bench's node JVMs).
     *
     * @return the URL with credentials
     */
    public String urlWithCredentials() {
        StringBuilder result = new StringBuilder(url)
                .append(url.indexOf('?') < 0 ? '?' : '&')
                .append("user=")
                .append(URLEncoder.encode(user, StandardCharsets.UTF_8));
        if (!password.isEmpty()) {
            result.append("&password=").append(URLEncoder.encode(password, StandardCharsets.UTF_8));
        }
        return result.toString();
    }

    /**
     * Returns the same server and credentials with another database in the URL.
     *
     * @param database the database name
     * @return the endpoint of that database
     */
    public JdbcEndpoint withDatabase(String database) {
        Matcher matcher = SERVER_URL.matcher(url);
        if (!matcher.matches()) {
            throw new IllegalStateException("Cannot replace the database in JDBC URL " + url);
        }
        String params = Objects.requireNonNullElse(matcher.group(3), "");
        return new JdbcEndpoint(matcher.group(1) + "/" + database + params, user, password);
    }

    /**
     * Opens a new HikariCP pool of at most 20 connections on this endpoint. The caller owns the pool
     * and closes it; {@link TestServers} keeps shared pools of its own.
     *
     * @return the new pool
     */
    public HikariDataSource dataSource() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(20);
        config.setMinimumIdle(1);
        return new HikariDataSource(config);
    }

    @Override
    public String toString() {
        return "JdbcEndpoint[url=" + url + ", user=" + user + ", password=" + (password.isEmpty() ? "" : "***") + "]";
    }
}
