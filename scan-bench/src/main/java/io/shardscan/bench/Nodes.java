package io.shardscan.bench;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Shardscan nodes as child JVMs ({@link NodeProcess}, {@link ApplicationNodeProcess}), started with this
 * JVM's class path (or its executable jar) and {@code -XX:} options. Each child's standard output is read on a thread of its own; the last line of
 * each kind ({@code READY}, {@code HEAP}, ...) is kept. Closing stops the children gracefully.
 */
public final class Nodes implements AutoCloseable {

    private final Map<String, Child> children = new LinkedHashMap<>();

    /**
     * Starts a node.
     *
     * @param xmx the child's {@code -Xmx}, e.g. {@code 512m}
     * @param args the {@link NodeProcess} arguments after the node id
     */
    public void start(String nodeId, String xmx, List<String> args) {
        start(NodeProcess.COMMAND, nodeId, xmx, args);
    }

    /**
     * Starts a node of another kind.
     *
     * @param kind the hidden first argument of {@link Main}, e.g. {@link ApplicationNodeProcess#COMMAND}
     */
    public void start(String kind, String nodeId, String xmx, List<String> args) {
        List<String> command = new ArrayList<>(List.of(javaBinary(), "-Xmx" + xmx));
        command.addAll(jvmOptions());
        command.addAll(launchTarget());
        command.add(kind);
        command.add(nodeId);
        command.addAll(args);
        try {
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            Child child = new Child(nodeId, process);
            children.put(nodeId, child);
            Thread reader = new Thread(child::read, "bench-node-" + nodeId);
            reader.setDaemon(true);
            reader.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start node " + nodeId + ": " + command, e);
        }
    }

    /** Waits until every node printed {@code READY}. */
    public void awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Child child : children.values()) {
            while (child.last("READY") == null) {
                if (!child.process.isAlive()) {
                    throw new IllegalStateException("node " + child.id + " exited: " + child.tail());
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("node " + child.id + " not ready: " + child.tail());
                }
                TimeUnit.MILLISECONDS.sleep(50);
            }
        }
    }

    /** The last line a node printed that starts with {@code kind}, or {@code null}. */
    public String last(String nodeId, String kind) {
        return children.get(nodeId).last(kind);
    }

    public List<String> ids() {
        return List.copyOf(children.keySet());
    }

    /** Writes a line to a node's standard input. */
    public void send(String nodeId, String line) {
        OutputStream in = children.get(nodeId).process.getOutputStream();
        try {
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write to node " + nodeId, e);
        }
    }

    /**
     * Fails when a node exited.
     *
     * @throws IllegalStateException naming the node, with its last lines
     */
    public void requireAlive() {
        for (Child child : children.values()) {
            if (!child.process.isAlive()) {
                throw new IllegalStateException("node " + child.id + " exited: " + child.tail());
            }
        }
    }

    /** SIGKILL: no shutdown hook runs, the node's leases are left to expire. */
    public void kill(String nodeId) throws InterruptedException {
        Process process = children.get(nodeId).process;
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** Closes a node's standard input: it stops its engine, prints its last lines and exits. */
    public void stop(String nodeId, Duration timeout) throws InterruptedException {
        Child child = children.get(nodeId);
        try {
            child.process.getOutputStream().close();
        } catch (IOException e) {
            // already gone
        }
        if (!child.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            child.process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
        child.drained.await(5, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        // every node told first, so that they shut down together
        for (Child child : children.values()) {
            try {
                child.process.getOutputStream().close();
            } catch (IOException e) {
                // already gone
            }
        }
        for (String id : ids()) {
            if (children.get(id).process.isAlive()) {
                stop(id, Duration.ofSeconds(15));
            }
        }
    }

    private static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * This JVM's {@code -XX:} options, so that a node runs as its launcher does: none from {@code java -jar},
     * the test JVMs' C1-only compiler and serial collector in the test suite (a node starts in about half the
     * CPU there).
     */
    private static List<String> jvmOptions() {
        return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(option -> option.startsWith("-XX:"))
                .toList();
    }

    /** {@code -jar scan-bench.jar} when run from the executable jar, else {@code -cp <class path> Main}. */
    private static List<String> launchTarget() {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        if (!classPath.contains(File.pathSeparator) && classPath.endsWith(".jar")) {
            return List.of("-jar", classPath);
        }
        return List.of("-cp", classPath, Main.class.getName());
    }

    private static final class Child {
        final String id;
        final Process process;
        final Map<String, String> lastByKind = new ConcurrentHashMap<>();
        final List<String> tail = new ArrayList<>();
        final java.util.concurrent.CountDownLatch drained = new java.util.concurrent.CountDownLatch(1);

        Child(String id, Process process) {
            this.id = id;
            this.process = process;
        }

        void read() {
            try (BufferedReader in =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    int space = line.indexOf(' ');
                    lastByKind.put(space < 0 ? line : line.substring(0, space), line);
                    synchronized (tail) {
                        tail.add(line);
                        if (tail.size() > 40) {
                            tail.remove(0);
                        }
                    }
                }
            } catch (IOException e) {
                // the process is gone
            } finally {
                drained.countDown();
            }
        }

        String last(String kind) {
            return lastByKind.get(kind);
        }

        String tail() {
            synchronized (tail) {
                return String.join("\n", tail);
            }
        }
    }
}
