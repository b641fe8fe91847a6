package io.shardscan.core.spi;

import io.shardscan.core.ScanTasks;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * How a wake-up reaches the node that owns a shard: {@link ScanTasks#wake(String, Object)} wakes a shard
 * this node holds directly and publishes the others here; every node receives what any node publishes
 * (and, on PostgreSQL, what an insert trigger notifies) and wakes the shards it holds, ignoring the
 * rest. Delivery is best effort: a wake-up lost on the way only waits for the shard's next tier-0 poll.
 * Implementations are thread-safe.
 */
public interface WakeChannel {

    /** No transport: a wake-up reaches only the shards this node holds; the others wait for their next poll. */
    WakeChannel NONE = new WakeChannel() {
        @Override
        public void publish(String task, Collection<Integer> shards) {}

        @Override
        public void open(Set<String> tasks, Receiver receiver) {}

        @Override
        public void close() {}

        @Override
        public String description() {
            return "none: a wake-up reaches only the shards this node holds; rows of other nodes' shards wait for"
                    + " their tier-0 poll (wake-ups travel through Redis with the Redis coordinator, and through"
                    + " PostgreSQL LISTEN/NOTIFY on PostgreSQL)";
        }
    };

    /** The shards as a channel's message carries them: the numbers, comma-separated ({@code "3,17"}). */
    static String encode(Collection<Integer> shards) {
        return shards.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    /**
     * The shards of a message {@link #encode} wrote, or an insert trigger's single number.
     *
     * @throws NumberFormatException when it is not comma-separated numbers
     */
    static List<Integer> decode(String message) {
        List<Integer> shards = new ArrayList<>();
        for (String shard : message.split(",")) {
            shards.add(Integer.parseInt(shard.trim()));
        }
        return shards;
    }

    /**
     * Sends a wake-up for {@code shards} of {@code task} to every node. Never throws for an unreachable
     * server: the wake-up is dropped (and logged), polling picks the rows up.
     */
    void publish(String task, Collection<Integer> shards);

    /** Starts delivering the wake-ups of {@code tasks} to {@code receiver}, until {@link #close()}; called once. */
    void open(Set<String> tasks, Receiver receiver);

    /** Stops delivering and releases the connections; publishing afterwards does nothing. */
    void close();

    /** One line for the startup log: which transport carries wake-ups, and what it cannot do. */
    String description();

    /** Where a channel delivers wake-ups; called on the channel's own thread, must be quick. */
    @FunctionalInterface
    interface Receiver {

        /** Some node asked for {@code shards} of {@code task} to be scanned now. */
        void wake(String task, Collection<Integer> shards);
    }
}
