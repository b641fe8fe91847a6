package io.shardscan.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.embedded.Redis;
import redis.embedded.RedisServer;
import redis.embedded.core.ExecutableProvider;

/**
 * A Redis server for tests: its address and, when the tests started it, control over its process so
 * that a test can {@link #stop()} it and {@link #start()} it again on the same port.
 */
public final class RedisServerHandle {

    private static final Logger log = LoggerFactory.getLogger(RedisServerHandle.class);

    private final String host;
    private final int port;
    private final String url;
    private final @Nullable Redis server;

    private RedisServerHandle(String host, int port, String url, @Nullable Redis server) {
        this.host = host;
        this.port = port;
        this.url = url;
        this.server = server;
    }

    /** A server the tests did not start, e.g. from {@code SCAN_TEST_REDIS_URL}. */
    static RedisServerHandle external(String redisUrl) {
        URI uri = URI.create(redisUrl);
        String host = uri.getHost() == null ? "127.0.0.1" : uri.getHost();
        return new RedisServerHandle(host, uri.getPort() > 0 ? uri.getPort() : 6379, redisUrl, null);
    }

    /**
     * Starts a server on a free loopback port with persistence off: the machine's {@code redis-server}
     * (found on {@code PATH}) when there is one, as users run a current Redis, else the binary bundled with
     * embedded-redis (Redis 6.2.6). {@code SCAN_TEST_EMBEDDED_REDIS=true} takes the bundled one even when the
     * machine has its own; {@code SCAN_TEST_SYSTEM_BINARIES=true} refuses to fall back to it.
     */
    static RedisServerHandle startLocal() throws IOException {
        Optional<Path> machine = Boolean.parseBoolean(System.getenv("SCAN_TEST_EMBEDDED_REDIS"))
                ? Optional.empty()
                : ServerSupport.findExecutable("redis-server");
        if (machine.isPresent()) {
            Path binary = machine.get();
            try {
                return launch(binary::toFile, "the machine's " + binary);
            } catch (IOException | RuntimeException e) {
                if (ServerSupport.preferSystemBinaries()) {
                    throw e;
                }
                log.warn("{} failed to start, trying the binary bundled with embedded-redis", binary, e);
            }
        } else if (ServerSupport.preferSystemBinaries()) {
            throw new IllegalStateException("Cannot start Redis: SCAN_TEST_SYSTEM_BINARIES=true and no redis-server"
                    + " on PATH (or SCAN_TEST_EMBEDDED_REDIS=true)");
        }
        return launch(ExecutableProvider.newJarResourceProvider(), "embedded-redis's bundled binary");
    }

    private static RedisServerHandle launch(ExecutableProvider binary, String origin) throws IOException {
        int port = ServerSupport.freePort();
        RedisServer server = RedisServer.newRedisServer()
                .executableProvider(binary)
                .bind("127.0.0.1")
                .port(port)
                .setting("save \"\"")
                .setting("appendonly no")
                .build();
        server.start();
        RedisServerHandle redis = new RedisServerHandle("127.0.0.1", port, "redis://127.0.0.1:" + port, server);
        // one line per test JVM that .ci/run's summary reads: which Redis the tests ran on
        log.info("Test server: Redis {} ({}), on port {}", redis.version(), origin, port);
        return redis;
    }

    /**
     * Returns the server's version as {@code INFO server} gives it ({@code redis_version}), or {@code
     * "unknown"} when the server does not answer it.
     */
    public String version() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 2_000);
            socket.setSoTimeout(2_000);
            socket.getOutputStream().write("INFO server\r\n".getBytes(StandardCharsets.US_ASCII));
            BufferedReader reply =
                    new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
            // a bulk string: $<length>, then "key:value" lines
            for (String line = reply.readLine(); line != null && !line.startsWith("-"); line = reply.readLine()) {
                if (line.startsWith("redis_version:")) {
                    return line.substring("redis_version:".length()).trim();
                }
            }
        } catch (IOException e) {
            log.debug("Redis at {} did not answer INFO server", url, e);
        }
        return "unknown";
    }

    /** Returns the host name or address of the server. */
    public String host() {
        return host;
    }

    /** Returns the TCP port of the server. */
    public int port() {
        return port;
    }

    /** Returns the server as a {@code redis://} URL. */
    public String url() {
        return url;
    }

    /** Returns whether the tests started this server, so that {@link #stop()}/{@link #start()} work. */
    public boolean isManaged() {
        return server != null;
    }

    /** Stops the server process and waits until it has exited; does nothing when already stopped. */
    public void stop() {
        try {
            managed().stop();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot stop Redis at " + url, e);
        }
    }

    /** Starts the stopped server again on the same port and waits until it accepts connections. */
    public void start() {
        try {
            managed().start();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start Redis at " + url, e);
        }
    }

    private Redis managed() {
        if (server == null) {
            throw new UnsupportedOperationException("Redis at " + url
                    + " was not started by the tests (SCAN_TEST_REDIS_URL is set), so it cannot be stopped or started;"
                    + " unset SCAN_TEST_REDIS_URL to run this test");
        }
        return server;
    }

    @Override
    public String toString() {
        return "RedisServerHandle[" + url + (isManaged() ? ", managed" : ", external") + "]";
    }
}
