package io.shardscan.core;

import java.util.Map;
import java.util.Objects;
import java.util.ResourceBundle;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Where the engine's log lines go. By default to the JDK's {@link System.Logger}, which is
 * java.util.logging unless the JVM has another {@code LoggerFinder}; the Spring glue points it at
 * the application's own logging, because java.util.logging resets itself as soon as the JVM starts
 * to shut down and drops every line after that — just when the engine says what it waits for, what
 * it gives up on and what it releases. Thread-safe.
 */
public final class ScanLogging {

    private static final Function<String, System.Logger> JDK = System::getLogger;
    private static volatile Loggers current = new Loggers(JDK);

    private ScanLogging() {}

    /** Sends the engine's lines to the loggers {@code loggers} makes, by logger name, from now on. */
    public static void use(Function<String, System.Logger> loggers) {
        current = new Loggers(Objects.requireNonNull(loggers, "loggers"));
    }

    /** Sends the engine's lines to the JDK's {@link System.Logger} again. */
    public static void useJdk() {
        current = new Loggers(JDK);
    }

    /** A logger for {@code type} that writes to whatever {@link #use} chose at the time of each line. */
    static System.Logger getLogger(Class<?> type) {
        return new Current(type.getName());
    }

    /** A choice of loggers, with the ones made so far. */
    private record Loggers(Function<String, System.Logger> factory, Map<String, System.Logger> made) {
        Loggers(Function<String, System.Logger> factory) {
            this(factory, new ConcurrentHashMap<>());
        }

        System.Logger get(String name) {
            return made.computeIfAbsent(name, factory);
        }
    }

    private record Current(String name) implements System.Logger {

        @Override
        public String getName() {
            return name;
        }

        @Override
        public boolean isLoggable(Level level) {
            return current.get(name).isLoggable(level);
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String message, Throwable thrown) {
            current.get(name).log(level, bundle, message, thrown);
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String format, Object... params) {
            current.get(name).log(level, bundle, format, params);
        }
    }
}
