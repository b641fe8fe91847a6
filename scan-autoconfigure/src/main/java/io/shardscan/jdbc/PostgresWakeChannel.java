package io.shardscan.jdbc;

import io.shardscan.core.spi.WakeChannel;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Wake-ups over PostgreSQL {@code LISTEN/NOTIFY} on the channel {@value #CHANNEL}, each payload
 * {@code task:shards} (shards comma-separated), which is also what an insert trigger sends (see
 * {@link PostgresWakeTrigger}). Listens on one connection of its own, taken from the pool and held
 * while the engine runs; when it breaks, a new one listens after a second, and wake-ups sent
 * meanwhile are lost (polling picks their rows up). Publishes with {@code pg_notify} on a pooled
 * connection. Thread-safe.
 */
public final class PostgresWakeChannel implements WakeChannel {

    /** The one channel of every task's wake-ups. */
    public static final String CHANNEL = "scan_wake";

    private static final System.Logger log = System.getLogger(PostgresWakeChannel.class.getName());
    private static final int POLL_MILLIS = 500;

    private final DataSource dataSource;
    private volatile boolean open;
    private volatile Thread listener;

    public PostgresWakeChannel(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /** Whether {@code dataSource} connects to PostgreSQL through its JDBC driver, which LISTEN needs. */
    public static boolean supports(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            return connection.isWrapperFor(PGConnection.class);
        } catch (SQLException e) {
            return false;
        }
    }

    @Override
    public void publish(String task, Collection<Integer> shards) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement notify = connection.prepareStatement("SELECT pg_notify(?, ?)")) {
            notify.setString(1, CHANNEL);
            notify.setString(2, task + ":" + WakeChannel.encode(shards));
            notify.execute();
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("NOTIFY " + CHANNEL + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void open(Set<String> tasks, Receiver receiver) {
        open = true;
        Thread thread = new Thread(() -> listen(Set.copyOf(tasks), receiver), "scan-wake-listen");
        thread.setDaemon(true);
        listener = thread;
        thread.start();
    }

    private void listen(Set<String> tasks, Receiver receiver) {
        boolean failed = false;
        while (open) {
            try (Connection connection = dataSource.getConnection()) {
                try {
                    connection.setAutoCommit(true);
                    try (Statement statement = connection.createStatement()) {
                        statement.execute("LISTEN " + CHANNEL);
                    }
                    if (failed) {
                        log.log(Level.INFO, "Shardscan listens for wake-ups on " + CHANNEL + " again");
                        failed = false;
                    }
                    PGConnection pg = connection.unwrap(PGConnection.class);
                    while (open) {
                        PGNotification[] notes = pg.getNotifications(POLL_MILLIS);
                        if (notes != null) {
                            for (PGNotification note : notes) {
                                deliver(tasks, note.getParameter(), receiver);
                            }
                        }
                    }
                } catch (SQLException | RuntimeException e) {
                    showBroken(connection);
                    throw e;
                }
            } catch (SQLException | RuntimeException e) {
                if (open && !failed) {
                    log.log(
                            Level.WARNING,
                            "Shardscan lost its LISTEN " + CHANNEL + " connection (" + e.getMessage() + "); wake-ups"
                                    + " from other nodes wait for the next poll until it listens again, retrying"
                                    + " every second");
                    failed = true;
                }
                LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
            }
        }
    }

    /**
     * The notifications were read past the pool's proxy, which so never saw the connection break: a
     * statement through the proxy shows it, so the pool drops the connection instead of lending it out.
     */
    private static void showBroken(Connection connection) {
        try (Statement probe = connection.createStatement()) {
            probe.execute("SELECT 1");
        } catch (SQLException e) {
            // broken indeed: the pool saw it
        }
    }

    private static void deliver(Set<String> tasks, String payload, Receiver receiver) {
        int colon = payload.lastIndexOf(':');
        String task = colon < 0 ? "" : payload.substring(0, colon);
        if (!tasks.contains(task)) {
            return;
        }
        try {
            receiver.wake(task, WakeChannel.decode(payload.substring(colon + 1)));
        } catch (RuntimeException e) {
            log.log(Level.WARNING, "Task " + task + ": ignored a wake-up whose shards are not numbers: " + payload);
        }
    }

    @Override
    public void close() {
        open = false;
        Thread thread = listener;
        if (thread != null) {
            try {
                thread.join(TimeUnit.MILLISECONDS.toMillis(2 * POLL_MILLIS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String description() {
        return "postgresql: LISTEN/NOTIFY on " + CHANNEL + " (one pooled connection listens, insert triggers'"
                + " notifications included), so a wake-up reaches the owning node in a round trip";
    }
}
