package io.shardscan.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
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
     * Starts a server on a free loopback port with persistence off: the binary bundled with
     * embedded-redis, or {@code redis-server} from {@code PATH} when that one does not run (or when
     * {@code SCAN_TEST_SYSTEM_BINARIES=true}).
     */
    static RedisServerHandle startLocal() throws IOException {
        int port = ServerSupport.freePort();
        if (!ServerSupport.preferSystemBinaries()) {
            try {
                return launch(port, ExecutableProvider.newJarResourceProvider(), "the embedded-redis bundled binary");
            } catch (IOException | RuntimeException e) {
                log.warn("embedded-redis bundled binary failed to start, trying redis-server on PATH", e);
            }
        }
        Path binary = ServerSupport.findExecutable("redis-server")
                .orElseThrow(() -> new IllegalStateException("Cannot start Redis: no redis-server on PATH"));
        return launch(port, binary::toFile, binary.toString());
    }

    private static RedisServerHandle launch(int port, ExecutableProvider binary, String origin) throws IOException {
        RedisServer server = RedisServer.newRedisServer()
                .executableProvider(binary)
                .bind("127.0.0.1")
                .port(port)
                .setting("save \"\"")
                .setting("appendonly no")
                .build();
        server.start();
        log.info("Started Redis on port {} using {}", port, origin);
        return new RedisServerHandle("127.0.0.1", port, "redis://127.0.0.1:" + port, server);
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
