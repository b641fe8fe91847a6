package io.shardscan.core.spi;

import org.jspecify.annotations.Nullable;

/**
 * The running totals of one task on one node, published with every heartbeat so that any node (and
 * its dashboard) can show every node of the cluster without asking the others. Counted since the
 * node started. Immutable.
 *
 * @param processed rows the node marked done
 * @param failed failures the node wrote back that left the row pending
 * @param dead rows the node marked dead
 * @param inFlight rows whose handler runs on the node right now
 * @param shards the task's shard count on the node ({@code scan.tasks.X.shards}), which every node
 *     compares with its own (see {@link ShardCountConflict}); {@link #UNKNOWN_SHARDS} when the node published
 *     none (a node of a version before it did)
 */
public record NodeCounters(long processed, long failed, long dead, long inFlight, int shards) {

    /** The {@link #shards()} of a node that published no shard count. */
    public static final int UNKNOWN_SHARDS = 0;

    /**
     * The longest text {@link #encode()} returns: four longs, a positive int and four commas (the
     * JDBC column holds 100).
     */
    public static final int MAX_ENCODED_LENGTH = 4 * 20 + 10 + 4;

    /** Totals without a shard count, as a node that published none. */
    public NodeCounters(long processed, long failed, long dead, long inFlight) {
        this(processed, failed, dead, inFlight, UNKNOWN_SHARDS);
    }

    /** Whether the node published its shard count. */
    public boolean knowsShards() {
        return shards > 0;
    }

    /**
     * The compact text a coordinator stores: {@code processed,failed,dead,inFlight,shards}. The shard
     * count rides with the counters so that neither coordinator needs a column or key of its own for it.
     */
    public String encode() {
        return processed + "," + failed + "," + dead + "," + inFlight + "," + shards;
    }

    /**
     * Reads what {@link #encode()} wrote.
     * Four fields (a node of a version before the shard count) read with {@link #UNKNOWN_SHARDS}.
     *
     * @return {@code null} for {@code null} or a text it cannot read (a node that published none)
     */
    public static @Nullable NodeCounters decode(@Nullable String text) {
        if (text == null) {
            return null;
        }
        String[] parts = text.split(",", -1);
        if (parts.length != 4 && parts.length != 5) {
            return null;
        }
        try {
            return new NodeCounters(
                    Long.parseLong(parts[0]),
                    Long.parseLong(parts[1]),
                    Long.parseLong(parts[2]),
                    Long.parseLong(parts[3]),
                    parts.length == 5 ? Math.max(UNKNOWN_SHARDS, Integer.parseInt(parts[4])) : UNKNOWN_SHARDS);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
