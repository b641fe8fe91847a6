package io.shardscan.core;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The statements one task's rounds and dispatcher are running now, each with its kind and start,
 * so that one stuck behind a lock or a slow database shows while it waits: {@link #slowest} for the
 * health and the metrics, and one WARN per statement once it has run longer than
 * {@code scan.lease-ttl} (a 15 s {@code LOCK TABLE} went unnoticed: health UP, no log line).
 * Thread-safe.
 */
final class RunningStatements {

    private static final System.Logger log = ScanLogging.getLogger(RunningStatements.class);

    private record Running(String kind, long startedNanos) {}

    private final String task;
    private final String table;
    private final ScanClock clock;
    private final Map<Long, Running> running = new ConcurrentHashMap<>();
    private final Map<Long, Boolean> warned = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final AtomicLong slowSeen = new AtomicLong();
    private final TimedOutStatements timeouts;

    RunningStatements(String task, String table, ScanClock clock) {
        this.task = task;
        this.table = table;
        this.clock = clock;
        this.timeouts = new TimedOutStatements(clock);
    }

    /** A statement of {@code kind} starts; pass what this returns to {@link #end}. */
    long begin(String kind) {
        long id = ids.incrementAndGet();
        running.put(id, new Running(kind, clock.nanos()));
        return id;
    }

    void end(long id) {
        running.remove(id);
        if (warned.remove(id) != null) {
            log.log(Level.INFO, "Task " + task + ": the slow statement on " + table + " ended");
        }
    }

    /** A statement of {@code kind} ended without failing: a timeout of that kind no longer shows. */
    void succeeded(String kind) {
        timeouts.succeeded(kind);
    }

    /**
     * A statement of {@code kind} ran past {@code timeout} and was cancelled: counted and kept for the
     * health until a statement of its kind succeeds.
     *
     * @return the failure to throw in its place, which names the kind, the table, the timeout and the fix
     */
    StatementTimeout timedOut(String kind, Duration timeout, RuntimeException cause) {
        return timeouts.record(new StatementTimeout(kind, table, timeout, cause));
    }

    /** The last statement timeout, described; {@code null} when none, or when one of its kind succeeded since. */
    @Nullable
    String lastTimeout() {
        return timeouts.last();
    }

    /** How many statements were cancelled for running past their timeout since start. */
    long timeouts() {
        return timeouts.count();
    }

    /** The statement running longest, if it has run longer than {@code over}; {@code null} when none has. */
    @Nullable
    SlowStatement slowest(Duration over) {
        long now = clock.nanos();
        Running longest = null;
        for (Running statement : running.values()) {
            if (longest == null || statement.startedNanos() - longest.startedNanos() < 0) {
                longest = statement;
            }
        }
        if (longest == null || now - longest.startedNanos() <= over.toNanos()) {
            return null;
        }
        return new SlowStatement(longest.kind(), table, Duration.ofNanos(now - longest.startedNanos()));
    }

    /** Logs one WARN for each statement that has run longer than {@code leaseTtl} and was not logged yet. */
    void warnSlow(Duration leaseTtl) {
        long now = clock.nanos();
        running.forEach((id, statement) -> {
            Duration took = Duration.ofNanos(now - statement.startedNanos());
            if (took.compareTo(leaseTtl) > 0 && warned.putIfAbsent(id, Boolean.TRUE) == null) {
                // it may have ended meanwhile: then end() found no mark, and this one is dropped here
                if (!running.containsKey(id)) {
                    warned.remove(id);
                    return;
                }
                slowSeen.incrementAndGet();
                log.log(
                        Level.WARNING,
                        "Task " + task + ": " + new SlowStatement(statement.kind(), table, took).describe(leaseTtl));
            }
        });
    }

    /** How many statements have been found running longer than {@code scan.lease-ttl} since start. */
    long slowSeen() {
        return slowSeen.get();
    }
}
