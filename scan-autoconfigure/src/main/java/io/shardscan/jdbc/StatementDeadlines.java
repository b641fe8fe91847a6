package io.shardscan.jdbc;

import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Cancels a statement of Shardscan's that ran past its timeout, from one thread for every statement
 * of the JVM, instead of the driver's timer per statement: PostgreSQL's driver schedules a task on its
 * shared timer for every statement with a query timeout and cancels it after, which woke the timer
 * thread at each statement and cost a range worker a fifth of its rows (docs/benchmarks.md). Each
 * thread that runs a timed statement has a slot holding its statement in hand and when it is due;
 * the watcher looks at every slot {@link #SWEEP} and cancels ({@link Statement#cancel}) a statement
 * that is open and overdue, which fails as the driver's own timeout does (PostgreSQL {@code 57014},
 * MariaDB {@code 1317}, H2's {@code SQLTimeoutException}). A statement is cancelled at most a
 * {@link #SWEEP} late. The watcher thread ends a minute after the last statement it watched. A
 * statement opened inside another's callback on the same thread takes the slot over: the outer one
 * is then no longer watched (Shardscan's statements do not nest). Thread-safe.
 */
final class StatementDeadlines {

    /** How often the watcher looks at the slots. */
    static final Duration SWEEP = Duration.ofMillis(100);

    private static final long IDLE_NANOS = TimeUnit.MINUTES.toNanos(1);

    private static final Map<Thread, Slot> slots = new ConcurrentHashMap<>();
    private static final ThreadLocal<Slot> own = new ThreadLocal<>();
    private static final Object watcherLock = new Object();
    private static volatile @Nullable Thread watcher;
    /** Set while the watcher decides whether to end: a statement watched meanwhile waits for the decision. */
    private static volatile boolean deciding;

    private StatementDeadlines() {}

    /** The statement a thread runs, and when it is due; written by the thread, read by the watcher. */
    private static final class Slot {
        volatile @Nullable Statement statement;
        volatile long dueNanos;
        volatile long usedNanos;
    }

    /** Watches {@code statement}, about to run on this thread, until it is closed or {@code timeout} passed. */
    static void watch(Statement statement, Duration timeout) {
        Slot slot = own.get();
        if (slot == null) {
            slot = new Slot();
            own.set(slot);
            slots.put(Thread.currentThread(), slot);
        }
        long now = System.nanoTime();
        slot.dueNanos = now + timeout.toNanos();
        slot.usedNanos = now;
        slot.statement = statement;
        ensureWatcher();
    }

    /** A {@link JdbcTemplate} on {@code dataSource} whose every statement is watched with {@code timeout}. */
    static JdbcTemplate template(javax.sql.DataSource dataSource, Duration timeout) {
        return new JdbcTemplate(dataSource) {
            @Override
            protected void applyStatementSettings(Statement statement) throws SQLException {
                super.applyStatementSettings(statement);
                watch(statement, timeout);
            }
        };
    }

    private static void ensureWatcher() {
        // this thread wrote its slot's use before reading these, and the watcher sets deciding before it reads
        // the slots' uses: either it sees this use and goes on, or this sees it deciding (or gone) and waits
        if (!deciding && watcher != null) {
            return;
        }
        synchronized (watcherLock) {
            if (watcher == null) {
                Thread thread = new Thread(StatementDeadlines::watchLoop, "shardscan-statement-timeouts");
                thread.setDaemon(true);
                watcher = thread;
                thread.start();
            }
        }
    }

    private static void watchLoop() {
        while (true) {
            LockSupport.parkNanos(SWEEP.toNanos());
            long now = System.nanoTime();
            for (Map.Entry<Thread, Slot> entry : slots.entrySet()) {
                Slot slot = entry.getValue();
                if (!entry.getKey().isAlive()) {
                    slots.remove(entry.getKey(), slot);
                    continue;
                }
                Statement statement = slot.statement;
                if (statement != null && now - slot.dueNanos >= 0) {
                    slot.statement = null;
                    cancelIfOpen(statement);
                }
            }
            synchronized (watcherLock) {
                deciding = true;
                long at = System.nanoTime();
                boolean idle = slots.values().stream().noneMatch(slot -> at - slot.usedNanos < IDLE_NANOS);
                if (idle) {
                    // a statement watched from now on starts another watcher
                    watcher = null;
                }
                deciding = false;
                if (idle) {
                    return;
                }
            }
        }
    }

    private static void cancelIfOpen(Statement statement) {
        try {
            if (!statement.isClosed()) {
                statement.cancel();
            }
        } catch (SQLException | RuntimeException e) {
            // closed meanwhile, or the connection broke: the statement is not running any more
        }
    }
}
