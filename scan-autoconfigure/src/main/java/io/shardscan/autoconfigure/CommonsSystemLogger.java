package io.shardscan.autoconfigure;

import java.text.MessageFormat;
import java.util.ResourceBundle;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * A {@link System.Logger} over Spring's commons-logging, which writes to the application's logging
 * (Logback, Log4j2, …) directly: the engine's lines keep flowing while the JVM shuts down, when
 * java.util.logging has already reset itself. Thread-safe.
 */
final class CommonsSystemLogger implements System.Logger {

    private final String name;
    private final Log log;

    CommonsSystemLogger(String name) {
        this.name = name;
        this.log = LogFactory.getLog(name);
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public boolean isLoggable(Level level) {
        return switch (level) {
            case ALL, TRACE -> log.isTraceEnabled();
            case DEBUG -> log.isDebugEnabled();
            case INFO -> log.isInfoEnabled();
            case WARNING -> log.isWarnEnabled();
            case ERROR -> log.isErrorEnabled();
            case OFF -> false;
        };
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String message, Throwable thrown) {
        switch (level) {
            case ALL, TRACE -> log.trace(message, thrown);
            case DEBUG -> log.debug(message, thrown);
            case INFO -> log.info(message, thrown);
            case WARNING -> log.warn(message, thrown);
            case ERROR -> log.error(message, thrown);
            case OFF -> {}
        }
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        if (isLoggable(level)) {
            String message = params == null || params.length == 0 ? format : MessageFormat.format(format, params);
            log(level, bundle, message, (Throwable) null);
        }
    }
}
