package io.shardscan.autoconfigure;

import io.shardscan.core.spi.WakeChannel;
import io.shardscan.jdbc.PostgresWakeChannel;
import java.util.Collection;
import java.util.Set;
import javax.sql.DataSource;
import org.springframework.util.ClassUtils;

/**
 * Picks how wake-ups travel: through Redis with the Redis coordinator (and also from PostgreSQL's
 * insert triggers when a task has {@code wake-on-insert}), else through PostgreSQL LISTEN/NOTIFY on
 * PostgreSQL, else none (H2, MySQL, MariaDB: a wake-up reaches only the shards of the node that calls it).
 */
final class ScanWakeChannels {

    private static final String PG_DRIVER = "org.postgresql.PGConnection";

    private ScanWakeChannels() {}

    /** The channel without Redis: PostgreSQL's when the database is PostgreSQL, else none. */
    static WakeChannel database(DataSource dataSource) {
        return postgres(dataSource) ? new PostgresWakeChannel(dataSource) : WakeChannel.NONE;
    }

    /** Redis's channel, also listening to PostgreSQL for the insert triggers of tasks with {@code wake-on-insert}. */
    static WakeChannel redis(WakeChannel redis, DataSource dataSource, ScanProperties properties) {
        boolean triggers = properties.getTasks().values().stream().anyMatch(TaskProperties::isWakeOnInsert);
        if (!postgres(dataSource)) {
            return redis;
        }
        if (!triggers) {
            // the startup line says so: a node without the setting misses the triggers' wake-ups of its shards
            return new Described(
                    redis,
                    redis.description() + "; not listening on " + PostgresWakeChannel.CHANNEL
                            + " for insert triggers (no task of this node has wake-on-insert; set it on every node)");
        }
        return new AlsoListening(redis, new PostgresWakeChannel(dataSource));
    }

    /** Another channel as it is, with a description that says more. */
    private record Described(WakeChannel channel, String description) implements WakeChannel {

        @Override
        public void publish(String task, Collection<Integer> shards) {
            channel.publish(task, shards);
        }

        @Override
        public void open(Set<String> tasks, Receiver receiver) {
            channel.open(tasks, receiver);
        }

        @Override
        public void close() {
            channel.close();
        }
    }

    static boolean postgres(DataSource dataSource) {
        return ClassUtils.isPresent(PG_DRIVER, ScanWakeChannels.class.getClassLoader())
                && PostgresWakeChannel.supports(dataSource);
    }

    /** Publishes through one channel and receives from both. */
    private record AlsoListening(WakeChannel main, WakeChannel triggers) implements WakeChannel {

        @Override
        public void publish(String task, Collection<Integer> shards) {
            main.publish(task, shards);
        }

        @Override
        public void open(Set<String> tasks, Receiver receiver) {
            main.open(tasks, receiver);
            triggers.open(tasks, receiver);
        }

        @Override
        public void close() {
            main.close();
            triggers.close();
        }

        @Override
        public String description() {
            return main.description() + "; listening for insert triggers (wake-on-insert) through "
                    + triggers.description();
        }
    }
}
