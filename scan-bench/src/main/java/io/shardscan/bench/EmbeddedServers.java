package io.shardscan.bench;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;
import redis.embedded.RedisServer;
import redis.embedded.core.ExecutableProvider;

/**
 * PostgreSQL (zonky embedded binaries) and Redis (embedded-redis, or {@code redis-server} on {@code
 * PATH} when the bundled binary does not run) on free loopback ports, for {@code --embedded} and the tests.
 */
public final class EmbeddedServers implements AutoCloseable {

    private final EmbeddedPostgres postgres;
    private final RedisServer redis;
    private final int redisPort;

    private EmbeddedServers(EmbeddedPostgres postgres, RedisServer redis, int redisPort) {
        this.postgres = postgres;
        this.redis = redis;
        this.redisPort = redisPort;
    }

    /** Starts both servers. */
    public static EmbeddedServers start() throws IOException {
        EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                .setServerConfig("fsync", "off")
                .setServerConfig("synchronous_commit", "off")
                .setServerConfig("max_connections", "300")
                .start();
        int port = freePort();
        RedisServer redis;
        try {
            redis = launchRedis(port, ExecutableProvider.newJarResourceProvider());
        } catch (IOException | RuntimeException e) {
            File binary = onPath("redis-server")
                    .orElseThrow(
                            () -> new IllegalStateException("embedded Redis failed and no redis-server on PATH", e))
                    .toFile();
            redis = launchRedis(port, () -> binary);
        }
        return new EmbeddedServers(postgres, redis, port);
    }

    private static RedisServer launchRedis(int port, ExecutableProvider binary) throws IOException {
        RedisServer server = RedisServer.newRedisServer()
                .executableProvider(binary)
                .bind("127.0.0.1")
                .port(port)
                .setting("save \"\"")
                .setting("appendonly no")
                .build();
        server.start();
        return server;
    }

    /** The JDBC URL of the embedded PostgreSQL's {@code postgres} database. */
    public String pgUrl() {
        return "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/postgres?user=postgres";
    }

    /** The embedded Redis as a URL. */
    public String redisUrl() {
        return "redis://127.0.0.1:" + redisPort;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static Optional<Path> onPath(String name) {
        String path = System.getenv().getOrDefault("PATH", "");
        return Stream.of(path.split(File.pathSeparator))
                .map(dir -> Path.of(dir, name))
                .filter(Files::isExecutable)
                .findFirst();
    }

    @Override
    public void close() throws IOException {
        try {
            redis.stop();
        } finally {
            postgres.close();
        }
    }
}
