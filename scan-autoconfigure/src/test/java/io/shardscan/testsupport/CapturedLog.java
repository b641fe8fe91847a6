package io.shardscan.testsupport;

import io.shardscan.core.ScanLogging;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The lines one logger logs during a test (register with @RegisterExtension, or call
 * {@link #beforeEach} and {@link #afterEach} around the code). The engine logs
 * through {@link System.Logger}, which with no other {@code LoggerFinder} on the test class path is
 * java.util.logging, so a JUL handler on the class's logger sees every line, whatever logback does
 * with them after.
 */
public final class CapturedLog implements BeforeEachCallback, AfterEachCallback {

    private final Logger logger;
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private volatile Consumer<LogRecord> whenLogged = record -> {};
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            whenLogged.accept(record);
            records.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };
    private Level previousLevel;

    /** Captures the logger named {@code name}: the engine names its loggers after their classes. */
    public CapturedLog(String name) {
        this.logger = Logger.getLogger(name);
    }

    /**
     * Runs {@code action} on the logging thread as each line is logged, before the line is captured:
     * to read what the engine had made visible at that moment.
     */
    public void whenLogged(Consumer<LogRecord> action) {
        this.whenLogged = action;
    }

    /** The messages logged at WARNING so far, in order. */
    public List<String> warnings() {
        return messages(Level.WARNING);
    }

    /** The messages logged at {@code level} so far, in order. */
    public List<String> messages(Level level) {
        return records(level).stream().map(LogRecord::getMessage).toList();
    }

    /** The records logged at {@code level} so far, in order, with their thrown exceptions. */
    public List<LogRecord> records(Level level) {
        return records.stream().filter(r -> r.getLevel() == level).toList();
    }

    /** Every message logged so far, in order. */
    public List<String> messages() {
        return records.stream().map(LogRecord::getMessage).toList();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        ScanLogging.useJdk(); // a Spring test before may have pointed the engine at the application's logging
        records.clear();
        previousLevel = logger.getLevel();
        logger.setLevel(Level.ALL);
        logger.addHandler(capture);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        logger.removeHandler(capture);
        whenLogged = record -> {};
        logger.setLevel(previousLevel);
    }
}
