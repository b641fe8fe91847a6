package io.shardscan.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/** Small helpers shared by the server launchers: free ports, executables, temporary directories. */
final class ServerSupport {

    private ServerSupport() {}

    /** Whether {@code SCAN_TEST_SYSTEM_BINARIES=true} asks to skip the bundled binaries. */
    static boolean preferSystemBinaries() {
        return Boolean.parseBoolean(System.getenv("SCAN_TEST_SYSTEM_BINARIES"));
    }

    /** Returns the environment variable, or {@code null} when it is unset or blank. */
    static @Nullable String env(String name) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? null : value.trim();
    }

    /** Returns a TCP port on the loopback address that was free a moment ago. */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("No free port", e);
        }
    }

    /** Finds the first of the names as an executable on {@code PATH} or in the usual sbin folders. */
    static Optional<Path> findExecutable(String... names) {
        String path = System.getenv().getOrDefault("PATH", "") + File.pathSeparator + "/usr/sbin:/usr/local/sbin";
        return Stream.of(names)
                .flatMap(name -> Stream.of(path.split(File.pathSeparator))
                        .filter(dir -> !dir.isEmpty())
                        .map(dir -> Path.of(dir, name)))
                .filter(Files::isRegularFile)
                .filter(Files::isExecutable)
                .findFirst();
    }

    /** Deletes a directory tree, ignoring what cannot be deleted. */
    static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // best effort: a leftover temporary directory is harmless
        }
    }
}
